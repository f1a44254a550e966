import type { FastifyServerOptions } from 'fastify';

/**
 * Structured JSON logs (pino) with a request id. Tokens, codes, secrets, passwords,
 * cookies and Authorization headers never reach a log line: bodies are never logged,
 * credential headers are redacted, and query values are masked unless known harmless.
 */

/** Parameters whose values help an operator and are never secret. */
const PUBLIC_PARAMETERS = new Set([
  'client_id',
  'response_type',
  'response_mode',
  'redirect_uri',
  'scope',
  'grant_type',
  'code_challenge_method',
  'token_type_hint',
  'resource',
]);

/** Parameters whose names are shown but whose values never are. */
const SECRET_PARAMETERS = new Set([
  'access_token',
  'refresh_token',
  'token',
  'code',
  'code_verifier',
  'code_challenge',
  'client_secret',
  'username',
  'password',
  'assertion',
  'state',
  'nonce',
]);

const MASK = '[REDACTED]';

function maskedPair(name: string, value: string): string {
  if (PUBLIC_PARAMETERS.has(name)) return `${name}=${encodeURIComponent(value)}`;
  // An unknown name may itself be a secret (`/token?eyJhbGci…`), so it is masked too.
  return `${SECRET_PARAMETERS.has(name) ? name : MASK}=${MASK}`;
}

/**
 * The URL as it may be logged: the path, and the query with every value masked except
 * those of PUBLIC_PARAMETERS. A fragment (never sent by a conforming client) is dropped.
 */
export function redactUrl(url: string): string {
  const end = url.search(/[?#]/);
  if (end === -1) return url;
  const path = url.slice(0, end);
  const queryEnd = url.indexOf('#', end);
  const query = url[end] === '?' ? url.slice(end + 1, queryEnd === -1 ? undefined : queryEnd) : '';
  const masked = [...new URLSearchParams(query)].map(([name, value]) => maskedPair(name, value));
  return masked.length > 0 ? `${path}?${masked.join('&')}` : path;
}

export function loggerOptions(level: string): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: MASK,
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
      },
    },
  };
}

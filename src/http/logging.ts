import type { FastifyRequest, FastifyServerOptions } from 'fastify';

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

function maskedQuery(query: string): string {
  return [...new URLSearchParams(query)].map(([name, value]) => maskedPair(name, value)).join('&');
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
  const masked = url[end] === '?' ? maskedQuery(url.slice(end + 1, queryEnd === -1 ? undefined : queryEnd)) : '';
  return masked ? `${path}?${masked}` : path;
}

/**
 * Masks the query of any URL quoted in a log message. Our own lines log URLs through
 * redactUrl; this catches Fastify's, which quote the raw URL (for instance its
 * "Reply was already sent ... in the "/path?…" route" warning).
 */
export function redactQueriesIn(message: string): string {
  return message.replace(/\?[^\s"'`()]*/g, (query) => `?${maskedQuery(query.slice(1))}`);
}

/** A copy of an error whose message and stack quote no query value (the original is left alone). */
function redactedError(error: Error): Error {
  if (!error.message.includes('?')) return error;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(error) as object) as Error, error);
  for (const [name, value] of [
    ['message', redactQueriesIn(error.message)],
    ['stack', redactQueriesIn(error.stack ?? '')],
    ['cause', error.cause],
  ] as const) {
    Object.defineProperty(copy, name, { value, writable: true, configurable: true, enumerable: false });
  }
  return copy;
}

/** Applied to every argument of every log call: message strings, errors, `{ err }` objects. */
function redactLogArgument(arg: unknown): unknown {
  if (typeof arg === 'string') return redactQueriesIn(arg);
  if (arg instanceof Error) return redactedError(arg);
  const err = (arg as { err?: unknown } | null)?.err;
  return err instanceof Error ? { ...(arg as object), err: redactedError(err) } : arg;
}

export function loggerOptions(level: string): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers.dpop', 'res.headers["set-cookie"]'],
      censor: MASK,
    },
    hooks: {
      logMethod(args, method) {
        return method.apply(this, args.map(redactLogArgument) as Parameters<typeof method>);
      },
    },
    serializers: {
      req(request: FastifyRequest) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
      },
    },
  };
}

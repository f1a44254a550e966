import type { FastifyServerOptions } from 'fastify';

/**
 * Structured JSON logs (pino) with a request id. Tokens, codes, secrets, passwords,
 * cookies and Authorization headers never reach a log line: bodies are never logged,
 * credential headers are redacted, and sensitive query values are masked.
 */

const SENSITIVE_PARAMETERS = new Set([
  'access_token',
  'refresh_token',
  'token',
  'code',
  'code_verifier',
  'client_secret',
  'password',
  'assertion',
  'state',
]);

export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  const masked = [...params].map(([name, value]) =>
    `${encodeURIComponent(name)}=${SENSITIVE_PARAMETERS.has(name) ? '[REDACTED]' : encodeURIComponent(value)}`,
  );
  return `${url.slice(0, queryStart)}?${masked.join('&')}`;
}

export function loggerOptions(level: string): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: '[REDACTED]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
      },
    },
  };
}

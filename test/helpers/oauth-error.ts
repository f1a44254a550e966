import type { Test } from 'tap';

/** What inject() answers, as far as an error check needs it. */
export interface InjectedResponse {
  readonly statusCode: number;
  readonly headers: Record<string, unknown>;
  json(): unknown;
}

export interface ExpectedOAuthError {
  readonly status: number;
  readonly error: string;
  /** The exact error_description; when omitted, only its presence is checked. */
  readonly description?: string;
  /** Further headers that must have exactly these values (WWW-Authenticate, Retry-After). */
  readonly headers?: Record<string, string>;
}

/**
 * A back-channel error as RFC 6749 §5.1-5.2 shape it: the exact status, JSON with
 * `Cache-Control: no-store` and `Pragma: no-cache`, and a body of exactly `error` and
 * `error_description`.
 */
export function expectOAuthError(t: Test, res: InjectedResponse, expected: ExpectedOAuthError): void {
  const what = expected.description ?? expected.error;
  t.equal(res.statusCode, expected.status, `status ${expected.status}: ${what}`);
  const headers: Record<string, string> = {
    'content-type': 'application/json;charset=UTF-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    ...expected.headers,
  };
  t.same(Object.fromEntries(Object.keys(headers).map((name) => [name, res.headers[name]])), headers, 'RFC 6749 §5.1 headers');
  const body = res.json() as Record<string, unknown>;
  if (expected.description === undefined) {
    t.same(Object.keys(body).sort(), ['error', 'error_description'], 'error and error_description only');
    t.equal(body.error, expected.error);
  } else {
    t.same(body, { error: expected.error, error_description: expected.description });
  }
}

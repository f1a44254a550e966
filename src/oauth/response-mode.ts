import type { RedirectTarget } from '../errors/index.js';

/**
 * Where the authorization response goes (OAuth 2.0 Multiple Response Type Encoding
 * Practices §2.1, OAuth 2.0 Form Post Response Mode). Pure: builds URLs and field
 * lists; rendering the form_post page is the route's job.
 */

/** The response types this server implements (RFC 6749 §3.1.1): the code flow and the implicit flow. */
export const RESPONSE_TYPES = ['code', 'token'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];
export type ResponseMode = RedirectTarget['responseMode'];
export const RESPONSE_MODES = ['query', 'fragment', 'form_post'] as const satisfies readonly ResponseMode[];

/** Where and how an authorization response (or error) reaches the client. */
export type ResponseTarget = RedirectTarget;

export function isResponseType(value: string): value is ResponseType {
  return (RESPONSE_TYPES as readonly string[]).includes(value);
}

export function isResponseMode(value: string): value is ResponseMode {
  return (RESPONSE_MODES as readonly string[]).includes(value);
}

/** The default mode: query for code (RFC 6749 §4.1.2, or the operator's choice), fragment for token (§4.2.2). */
export function defaultResponseMode(responseType: ResponseType | undefined, codeDefault: 'query' | 'fragment'): ResponseMode {
  return responseType === 'token' ? 'fragment' : codeDefault;
}

/**
 * Multiple Response Types §2.1: "For purposes of this specification, the default
 * Response Mode for the OAuth 2.0 token Response Type is the fragment encoding and the
 * query encoding MUST NOT be used."
 */
export function isModeAllowed(responseType: ResponseType, mode: ResponseMode): boolean {
  return !(responseType === 'token' && mode === 'query');
}

export type ResponseParameters = ReadonlyArray<readonly [string, string]>;

function encode(params: ResponseParameters): string {
  return params.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
}

/**
 * The redirect URI with the parameters added. RFC 6749 §3.1.2: the endpoint URI "MAY
 * include an query component, which MUST be retained when adding additional query
 * parameters". The registered URI is kept byte for byte (no URL re-serialization).
 */
export function redirectLocation(redirectUri: string, mode: 'query' | 'fragment', params: ResponseParameters): string {
  if (mode === 'fragment') return `${redirectUri}#${encode(params)}`;
  const separator = redirectUri.includes('?') ? (redirectUri.endsWith('?') || redirectUri.endsWith('&') ? '' : '&') : '?';
  return `${redirectUri}${separator}${encode(params)}`;
}

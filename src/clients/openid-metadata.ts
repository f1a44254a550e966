import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';

/**
 * The client metadata of OpenID Connect Dynamic Client Registration 1.0 §2 this server
 * understands, and the rules every client is held to, whether in CLIENTS_FILE, registered
 * (RFC 7591) or described by a metadata document: `id_token_signed_response_alg`,
 * `default_max_age`, `require_auth_time` (and `post_logout_redirect_uris`, RP-Initiated
 * Logout 1.0 §3.1, whose URIs follow the redirect URI rules of each kind of client).
 */

const OFFERED = SIGNING_ALGORITHMS.join(', ');

export function isIdTokenSigningAlgorithm(value: string): value is SigningAlgorithm {
  return (SIGNING_ALGORITHMS as readonly string[]).includes(value);
}

/**
 * What is wrong with `value` as `id_token_signed_response_alg`, or undefined. Only the
 * algorithms the server signs with: never `none` (the server offers only signed ID tokens;
 * Core 1.0 §3.1.3.7 lets a client accept `none` only where no ID token goes through the
 * browser, and refusing it rules out a token forged in transit), never HMAC (it would sign
 * with the client secret, which public clients do not have, and RFC 8725 §3.1 keeps
 * algorithms to those a key was made for).
 */
export function idTokenAlgorithmProblem(value: string): string | undefined {
  if (isIdTokenSigningAlgorithm(value)) return undefined;
  if (value.toLowerCase() === 'none') return `'none' is refused: ID tokens are always signed, with one of ${OFFERED}`;
  if (/^HS\d+$/i.test(value))
    return `${value} (HMAC) is refused: ID tokens are signed with the server's asymmetric keys, one of ${OFFERED}`;
  return `must be one of ${OFFERED}`;
}

/** `default_max_age` (§2: "Default Maximum Authentication Age", in seconds): a whole number, 0 or more. */
export function isDefaultMaxAge(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

export const DEFAULT_MAX_AGE_PROBLEM = 'must be a whole number of seconds, 0 or more';

import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * RFC 7636 (PKCE), S256 only.
 * §4.1: code-verifier = 43*128unreserved; unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
 * §4.2: code_challenge = BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))
 */

const UNRESERVED_43_128 = /^[A-Za-z0-9\-._~]{43,128}$/;

export const CODE_CHALLENGE_METHOD = 'S256';

export function isWellFormedCodeChallenge(value: string): boolean {
  return UNRESERVED_43_128.test(value);
}

export function isWellFormedCodeVerifier(value: string): boolean {
  return UNRESERVED_43_128.test(value);
}

export function s256CodeChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** §4.6: the server compares the transformed verifier with the stored challenge, here in constant time. */
export function codeVerifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(s256CodeChallenge(verifier));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

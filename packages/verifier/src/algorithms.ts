/**
 * The JWS algorithms (RFC 7518) we sign access tokens with, and so the only ones our
 * verifiers accept: all asymmetric, never `none`, never HMAC (RFC 8725 §3.1).
 */
export const SIGNING_ALGORITHMS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

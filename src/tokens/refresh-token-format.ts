import type { RefreshTokenRef } from '../store/types.js';
import { digestOf } from './opaque.js';
import { randomBase64url } from './random-id.js';

/**
 * Refresh tokens of constant-size families:
 *
 *   refresh-token = grant-id "." generation "." nonce "." sealed
 *   grant-id      = 22 base64url characters     the grant's 128-bit id (public: access tokens carry it)
 *   generation    = "0" / %x31-39 *9base36      base36, lower case, no leading zero: 0 for a family's
 *                                               first token, one more at each rotation
 *   nonce         = 43 base64url characters     256 random bits
 *   sealed        = 1*base64url                 the family data sealed with AES-256-GCM for the grant,
 *                                               the same in every token of the family (IV, tag, ciphertext;
 *                                               before: ciphertext and tag, for the head
 *                                               `grant-id "." generation "." nonce`; see
 *                                               src/tokens/refresh-token-sealer.ts)
 *
 * The store keeps only the SHA-256 digest of the head, for the current token and the one
 * before it. A value of the legacy format (`<grantId>.<secret>`) never matches this grammar.
 */

/** Longest value accepted: a family's data is small (ids, scope, resources), never near this. */
const MAX_LENGTH = 8192;
const REFRESH_TOKEN = /^([A-Za-z0-9_-]{22})\.(0|[1-9a-z][0-9a-z]{0,9})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]+)$/;

/** Everything of a token but its sealed part: what the store knows it by. */
export interface RefreshTokenHead extends RefreshTokenRef {
  /** `<grantId>.<generation>.<nonce>`: the additional data of the seal. */
  readonly head: string;
}

export interface PresentedRefreshToken extends RefreshTokenHead {
  readonly sealed: string;
}

function headOf(grantId: string, generation: number, nonce: string): RefreshTokenHead {
  const head = `${grantId}.${generation.toString(36)}.${nonce}`;
  return { grantId, generation, head, digest: digestOf(head) };
}

/** A fresh head (a new nonce) for the token of `generation` in the family of `grantId`. */
export function newRefreshTokenHead(grantId: string, generation: number): RefreshTokenHead {
  return headOf(grantId, generation, randomBase64url(32));
}

/** The parts of a presented value, or undefined when it is not a refresh token of this format. */
export function parseRefreshToken(value: string): PresentedRefreshToken | undefined {
  if (value.length > MAX_LENGTH) return undefined;
  const match = REFRESH_TOKEN.exec(value);
  if (!match) return undefined;
  const [, grantId, generation, nonce, sealed] = match as unknown as [string, string, string, string, string];
  return { ...headOf(grantId, parseInt(generation, 36), nonce), sealed };
}

/** The complete value: the head and its sealed family data. */
export function refreshTokenValue(head: RefreshTokenHead, sealed: string): string {
  return `${head.head}.${sealed}`;
}

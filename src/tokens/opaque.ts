import { sha256Base64url } from '../shared/sha256.js';
import type { OpaqueTokenRef } from '../store/types.js';
import { randomBase64url, randomId } from './random-id.js';

/**
 * Authorization codes (and the refresh tokens of legacy families, see
 * src/tokens/refresh-token-format.ts for today's): `<grantId>.<secret>`. The secret carries
 * 256 bits of entropy; the grant id (128 bits, not secret) names the authorization
 * they belong to, so the store can keep every key of one grant under one Redis
 * Cluster hash tag without a lookup. Only the SHA-256 digest of the whole value is
 * ever stored, so a dump of the store yields nothing usable.
 */

const OPAQUE_TOKEN = /^([A-Za-z0-9_-]{22})\.[A-Za-z0-9_-]{43}$/;
const GRANT_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * A new grant id, never one that starts with `-`: grant ids are typed on command lines
 * (`grants revoke <grant-id>`), where such a value reads as an option. One draw in 64 is
 * drawn again, which costs about 0.02 of its 128 bits.
 */
export function newGrantId(): string {
  let id = randomId();
  while (id.startsWith('-')) id = randomId();
  return id;
}

/** Whether `value` has the form newGrantId gives: 128 bits as 22 base64url characters. */
export function isGrantId(value: string): boolean {
  return GRANT_ID.test(value);
}

export function mintOpaqueToken(grantId: string): { value: string; ref: OpaqueTokenRef } {
  const value = `${grantId}.${randomBase64url(32)}`;
  return { value, ref: { grantId, digest: digestOf(value) } };
}

/** The store reference of a presented value, or undefined when it cannot be one of ours. */
export function refOf(value: string): OpaqueTokenRef | undefined {
  const match = OPAQUE_TOKEN.exec(value);
  return match ? { grantId: match[1] as string, digest: digestOf(value) } : undefined;
}

/** SHA-256, base64url: how the store names a code or a refresh token. */
export function digestOf(value: string): string {
  return sha256Base64url(value);
}

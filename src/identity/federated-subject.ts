import { createHash } from 'node:crypto';
import { FEDERATED_PREFIX } from '../shared/federated-prefix.js';

/**
 * The `sub` of a user who signed in through an upstream provider: derived from the pair
 * (provider id, upstream subject), so it is the same at every sign-in, differs for the same
 * upstream subject under another provider id, and cannot collide with a local user's `sub`
 * or a client id: those may not begin with FEDERATED_PREFIX (the users and clients files
 * refuse it). The upstream subject is hashed, not shown: `sub` travels in every token.
 */

export { FEDERATED_PREFIX };

/** Domain separation for the hash: a change of scheme would never reuse old values. */
const CONTEXT = 'oauth2-token-service federated subject v1';

export function federatedSubject(providerId: string, upstreamSubject: string): string {
  // JSON keeps the pair unambiguous whatever characters an upstream subject holds.
  const digest = createHash('sha256')
    .update(JSON.stringify([CONTEXT, providerId, upstreamSubject]))
    .digest('base64url');
  return `${FEDERATED_PREFIX}${digest}`;
}

export function isFederatedSubject(sub: string): boolean {
  return sub.startsWith(FEDERATED_PREFIX);
}

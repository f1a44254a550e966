import { createHash, hkdfSync } from 'node:crypto';
import type { Parameters } from '../oauth/form-params.js';
import { openUnder, sealUnder } from '../tokens/sealed-response.js';
import type { SignInDemands, UpstreamChecks } from './upstream.js';

/**
 * A sign-in at an upstream provider between our redirect and its callback: which provider,
 * the checks the callback must pass (nonce, PKCE verifier), the browser that started it,
 * and our client's authorization request to resume. It is kept in the store, never in one
 * process's memory, so the callback may land on any instance, after a restart too; the
 * store holds it under the SHA-256 of its `state`, sealed (AES-256-GCM) under a key derived
 * from the `state`, which only the callback URL carries: a dump of the store yields
 * neither the verifier nor the request.
 */

/** How long a user has at the provider before the callback is refused (its sign-in and consent pages). */
export const UPSTREAM_SIGN_IN_TTL_SECONDS = 600;

export interface UpstreamSignInRecord {
  readonly provider: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  /** The browser that started the sign-in: a MAC of its CSRF cookie (src/session/). */
  readonly browser: string;
  /** Our client's authorization request, resumed after the callback. */
  readonly parameters: Parameters;
  readonly demands: SignInDemands;
}

function keyOf(state: string): Buffer {
  return Buffer.from(hkdfSync('sha256', state, 'oauth2-token-service', 'upstream sign-in', 32));
}

/** Where the store keeps the sign-in of `state`. */
export function stateDigest(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('base64url');
}

/**
 * Who may take the sign-in, as the store compares it before taking: the digest of the
 * provider's id and the browser's binding (itself a MAC of the browser's CSRF cookie).
 */
export function bindingDigest(provider: string, browser: string): string {
  return createHash('sha256')
    .update(JSON.stringify([provider, browser]), 'utf8')
    .digest('base64url');
}

export function sealSignIn(checks: UpstreamChecks, record: UpstreamSignInRecord): string {
  return sealUnder(keyOf(checks.state), JSON.stringify(record));
}

/** The record sealed under `state`, or undefined when it does not open (altered, or not this state's). */
export function openSignIn(state: string, sealed: string): UpstreamSignInRecord | undefined {
  const plaintext = openUnder(keyOf(state), sealed);
  return plaintext === undefined ? undefined : (JSON.parse(plaintext) as UpstreamSignInRecord);
}

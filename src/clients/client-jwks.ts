import type { JWK } from 'jose';
import { type ClientAssertionAlgorithm } from '../oauth/client-assertion.js';

/**
 * The public keys a `private_key_jwt` client verifies with (RFC 7591 §2 `jwks` and
 * `jwks_uri`): the rules of a JWK Set a client registers or publishes, the same for
 * CLIENTS_FILE, registrations, metadata documents and what a `jwks_uri` answers, and which
 * of its keys may have signed an assertion.
 */

/** A JWK Set of public keys only, validated by clientJwksProblem. */
export interface PublicJwks {
  readonly keys: readonly JWK[];
}

/** Where a private_key_jwt client's keys are: inline, or at a URL we fetch (src/clients/client-keys.ts). */
export type ClientKeysSource = { readonly jwks: PublicJwks } | { readonly jwksUri: string };

/** More than a rotation needs (the current key and the next), few enough to try each. */
export const MAX_CLIENT_KEYS = 10;

/** JWK members that carry private or symmetric key material (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2). */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The members each key type needs to be a public key we can verify with. */
const PUBLIC_MEMBERS: Record<string, readonly string[]> = { RSA: ['n', 'e'], EC: ['crv', 'x', 'y'], OKP: ['crv', 'x'] };

/** Whether any key of a JWK Set (or anything shaped like one) carries private key material. */
export function hasPrivateKeyMaterial(jwks: unknown): boolean {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) && keys.some((key) => typeof key === 'object' && key !== null && PRIVATE_JWK_MEMBERS.some((m) => m in key));
}

function jwkProblem(key: unknown): string | undefined {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return 'must be a JSON object (a JWK)';
  const jwk = key as Record<string, unknown>;
  // Registered keys are published by nature: a private or shared key there is a leaked one.
  if (PRIVATE_JWK_MEMBERS.some((member) => member in jwk) || jwk.kty === 'oct')
    return 'only public keys: private or symmetric key material (d, k, ...) must not be registered';
  const members = typeof jwk.kty === 'string' ? PUBLIC_MEMBERS[jwk.kty] : undefined;
  if (!members) return 'kty must be RSA, EC or OKP';
  const missing = members.filter((member) => typeof jwk[member] !== 'string' || jwk[member] === '');
  if (missing.length > 0) return `kty ${String(jwk.kty)} needs ${missing.join(', ')}`;
  for (const member of ['kid', 'alg', 'use'])
    if (jwk[member] !== undefined && typeof jwk[member] !== 'string') return `${member} must be a string`;
  return undefined;
}

/** What makes `value` unusable as a client's JWK Set (RFC 7517 §5), or undefined when it is one. */
export function clientJwksProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JWK Set (an object with a keys array)';
  const { keys } = value as { keys?: unknown };
  if (!Array.isArray(keys) || keys.length === 0) return 'must be a JWK Set with at least one key';
  if (keys.length > MAX_CLIENT_KEYS) return `at most ${MAX_CLIENT_KEYS} keys`;
  for (const [index, key] of keys.entries()) {
    const problem = jwkProblem(key);
    if (problem) return `keys[${index}]: ${problem}`;
  }
  return undefined;
}

/** A published JWK Set (the body a jwks_uri answers) may hold more keys than a client registers inline. */
export const MAX_PUBLISHED_KEYS = 100;

/**
 * The keys of a document a `jwks_uri` answered that we can verify with; throws Error saying
 * why the document is unusable. A key of a type we do not use (a post-quantum key, say) is
 * left out, but any private or symmetric key material refuses the whole document: it is
 * published by mistake, and nothing signed with it proves anything.
 */
export function publishedJwks(body: unknown): PublicJwks {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { keys?: unknown }).keys))
    throw new Error('not a JWK Set (an object with a keys array)');
  const { keys } = body as { keys: unknown[] };
  if (keys.length > MAX_PUBLISHED_KEYS) throw new Error(`more than ${MAX_PUBLISHED_KEYS} keys`);
  if (hasPrivateKeyMaterial(body) || keys.some((key) => (key as { kty?: unknown } | null)?.kty === 'oct'))
    throw new Error('private or symmetric key material is published');
  const usable = keys.filter((key) => jwkProblem(key) === undefined) as JWK[];
  if (usable.length === 0) throw new Error('no RSA, EC or OKP public key');
  return { keys: usable };
}

/** The key type (and curve) an algorithm verifies with. */
const KEY_TYPE_OF: Record<ClientAssertionAlgorithm, { readonly kty: string; readonly crv?: string }> = {
  ES256: { kty: 'EC', crv: 'P-256' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519' },
  Ed25519: { kty: 'OKP', crv: 'Ed25519' },
  RS256: { kty: 'RSA' },
  PS256: { kty: 'RSA' },
};

/** One algorithm under two names (RFC 9864 §2.2): a key registered for one verifies the other. */
const EDDSA: ReadonlySet<string> = new Set(['EdDSA', 'Ed25519']);

/**
 * The keys of `jwks` that may have signed a JWS with `alg` and `kid`: of the algorithm's key
 * type and curve, for signatures (`use`, `key_ops`), of that `alg` when the key names one,
 * and with that `kid` when the header names one (RFC 7515 §4.1.4).
 */
export function candidateKeys(jwks: PublicJwks, alg: ClientAssertionAlgorithm, kid: string | undefined): JWK[] {
  const { kty, crv } = KEY_TYPE_OF[alg];
  return jwks.keys.filter(
    (key) =>
      key.kty === kty &&
      (crv === undefined || key.crv === crv) &&
      (key.use === undefined || key.use === 'sig') &&
      (key.key_ops === undefined || key.key_ops.includes('verify')) &&
      (key.alg === undefined || key.alg === alg || (EDDSA.has(key.alg) && EDDSA.has(alg))) &&
      (kid === undefined || key.kid === kid),
  );
}

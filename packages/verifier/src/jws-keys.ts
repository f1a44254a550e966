import { createPublicKey, hash, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * The algorithms compact-jws.ts verifies, each with its one key type (and curve), and the
 * keys: an RFC 7638 thumbprint, and a KeyObject made from a public JWK under those rules.
 */

/** Why a JWS or its key was refused: `what` names the part, for the caller's own error. */
export class CompactJwsRefused extends Error {
  constructor(
    readonly what: 'malformed' | 'key' | 'signature',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CompactJwsRefused';
  }
}

export interface AlgorithmRule {
  readonly kty: 'EC' | 'RSA' | 'OKP';
  /** The curve (EC, OKP). */
  readonly crv?: string;
  /** node:crypto's name of the key type, and of the curve (EC). */
  readonly keyType: 'ec' | 'rsa' | 'ed25519';
  readonly curve?: string;
  /** node:crypto's digest; null for EdDSA, which hashes itself. */
  readonly digest: string | null;
  /** ES*: the length of R || S (RFC 7518 §3.4). */
  readonly signatureLength?: number;
  /** PS*: the salt length, the hash's (RFC 7518 §3.5). */
  readonly pssSalt?: number;
}

const ec = (crv: string, curve: string, digest: string, signatureLength: number): AlgorithmRule => ({
  kty: 'EC',
  crv,
  keyType: 'ec',
  curve,
  digest,
  signatureLength,
});
const ed25519: AlgorithmRule = { kty: 'OKP', crv: 'Ed25519', keyType: 'ed25519', digest: null };

/** The asymmetric JWS algorithms verified here (RFC 7518 §3.1, RFC 8037 §3.1, RFC 9864 Ed25519): never `none`, never HMAC. */
export const RULES: ReadonlyMap<string, AlgorithmRule> = new Map([
  ['ES256', ec('P-256', 'prime256v1', 'sha256', 64)],
  ['ES384', ec('P-384', 'secp384r1', 'sha384', 96)],
  ['ES512', ec('P-521', 'secp521r1', 'sha512', 132)],
  ['EdDSA', ed25519],
  ['Ed25519', ed25519],
  ['RS256', { kty: 'RSA', keyType: 'rsa', digest: 'sha256' }],
  ['RS384', { kty: 'RSA', keyType: 'rsa', digest: 'sha384' }],
  ['RS512', { kty: 'RSA', keyType: 'rsa', digest: 'sha512' }],
  ['PS256', { kty: 'RSA', keyType: 'rsa', digest: 'sha256', pssSalt: 32 }],
  ['PS384', { kty: 'RSA', keyType: 'rsa', digest: 'sha384', pssSalt: 48 }],
  ['PS512', { kty: 'RSA', keyType: 'rsa', digest: 'sha512', pssSalt: 64 }],
]);

export const MIN_RSA_BITS = 2048;
/** Members of a private or symmetric JWK (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
/** Whether `alg` is one verified here. */
export function isVerifiableAlgorithm(alg: unknown): alg is string {
  return typeof alg === 'string' && RULES.has(alg);
}

function requiredString(jwk: Record<string, unknown>, member: string): string {
  const value = jwk[member];
  if (typeof value !== 'string' || value === '') throw new CompactJwsRefused('key', `the JWK "${member}" is missing or invalid`);
  return value;
}

/**
 * RFC 7638 §3: the JWK SHA-256 thumbprint, over the required members in lexicographic order
 * with no whitespace (§3.2), base64url-encoded. The members checked as jose's
 * calculateJwkThumbprint checks them; throws CompactJwsRefused('key') for another key type.
 */
export function jwkThumbprint(jwk: Record<string, unknown>): string {
  const str = (member: string) => requiredString(jwk, member);
  let members: Record<string, string>;
  switch (jwk.kty) {
    case 'EC':
      members = { crv: str('crv'), kty: 'EC', x: str('x'), y: str('y') };
      break;
    case 'OKP':
      members = { crv: str('crv'), kty: 'OKP', x: str('x') };
      break;
    case 'RSA':
      members = { e: str('e'), kty: 'RSA', n: str('n') };
      break;
    case 'AKP':
      members = { alg: str('alg'), kty: 'AKP', pub: str('pub') };
      break;
    default:
      throw new CompactJwsRefused('key', 'the JWK kty is missing or unsupported');
  }
  // One-shot: no Hash object, a third of createHash().update().digest() on input this short.
  return hash('sha256', JSON.stringify(members), 'base64url');
}

/**
 * The public key of `jwk` for verifying `alg`: its key type and curve the algorithm's, no
 * private member, `ext` a boolean and `key_ops` exactly ["verify"] when present (what
 * WebCrypto's JWK import required under jose), RSA of 2048 bits at least. Throws
 * CompactJwsRefused('key'). Make it once per key and keep it: this is the expensive step.
 */
export function publicKeyOf(jwk: Record<string, unknown>, alg: string): KeyObject {
  const rule = RULES.get(alg);
  if (!rule) throw new CompactJwsRefused('key', `alg ${alg} is not verified here`);
  if (jwk.kty !== rule.kty) throw new CompactJwsRefused('key', `a ${alg} key must have kty ${rule.kty}`);
  if (rule.crv !== undefined && jwk.crv !== rule.crv) throw new CompactJwsRefused('key', `a ${alg} key must be on ${rule.crv}`);
  if (PRIVATE_MEMBERS.some((member) => jwk[member] !== undefined)) throw new CompactJwsRefused('key', 'not a public key');
  if (jwk.ext !== undefined && typeof jwk.ext !== 'boolean') throw new CompactJwsRefused('key', 'the JWK ext must be a boolean');
  const ops = jwk.key_ops;
  if (ops !== undefined && !(Array.isArray(ops) && ops.length === 1 && ops[0] === 'verify'))
    throw new CompactJwsRefused('key', 'the JWK key_ops do not allow verify');
  const str = (member: string) => requiredString(jwk, member);
  const members =
    rule.kty === 'RSA'
      ? { kty: 'RSA', n: str('n'), e: str('e') }
      : rule.kty === 'EC'
        ? { kty: 'EC', crv: rule.crv, x: str('x'), y: str('y') }
        : { kty: 'OKP', crv: rule.crv, x: str('x') };
  let key: KeyObject;
  try {
    key = createPublicKey({ key: members as JsonWebKey, format: 'jwk' });
  } catch (err) {
    throw new CompactJwsRefused('key', 'the JWK is not a valid public key', { cause: err });
  }
  if (rule.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
    throw new CompactJwsRefused('key', `${alg} requires a key of ${MIN_RSA_BITS} bits or more`);
  return key;
}

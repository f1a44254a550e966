import { constants, createHash, createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';

/**
 * RFC 7515 compact JWS verification with node:crypto, for the signatures checked on every
 * request of a grant (DPoP proofs, client assertions). Why not jose here: jose verifies
 * through WebCrypto, where every signature check, every JWK import and every thumbprint
 * digest is a promise settled on libuv's thread pool. Measured on the bench host (ES256, 32
 * concurrent): jose's compactVerify 154-162 µs of CPU per signature against 100-124 µs for
 * node:crypto's verify with a KeyObject made once, and jose's calculateJwkThumbprint 58 µs
 * against 4 µs for a SHA-256 here; a DPoP proof went from 265-278 µs to about half.
 * The rules jose applied stay: only the asymmetric algorithms below, each with the one key
 * type (and curve) RFC 7518 / RFC 8037 give it, RSA keys of 2048 bits at least, ES*
 * signatures in their JOSE form (R || S, RFC 7518 §3.4; a DER signature does not verify),
 * RSASSA-PSS with a salt as long as the hash (§3.5), and a `crit` header refused (§4.1.11:
 * we understand no extension).
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

interface AlgorithmRule {
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
const RULES: ReadonlyMap<string, AlgorithmRule> = new Map([
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

const MIN_RSA_BITS = 2048;
/** Members of a private or symmetric JWK (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
/** Header and payload, then the signature: empty for `alg: none`, refused later by its algorithm, not as malformed. */
const SEGMENTS = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A compact JWS taken apart, nothing verified yet. */
export interface CompactJws {
  /** The JOSE header, decoded (RFC 7515 §7.1: BASE64URL(UTF8(JWS Protected Header))). */
  readonly header: Readonly<Record<string, unknown>>;
  /** ASCII(BASE64URL(header) || '.' || BASE64URL(payload)): what the signature covers. */
  readonly signingInput: string;
  /** BASE64URL(payload), not decoded. */
  readonly payloadSegment: string;
  readonly signatureSegment: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A base64url segment holding a UTF-8 JSON object; throws CompactJwsRefused('malformed') saying "not JSON" or "not a JSON object". */
export function decodeJsonSegment(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(Buffer.from(segment, 'base64url')));
  } catch (err) {
    throw new CompactJwsRefused('malformed', 'not JSON', { cause: err });
  }
  if (!isObject(value)) throw new CompactJwsRefused('malformed', 'not a JSON object');
  return value;
}

/** Takes a compact JWS apart (its header decoded once); throws CompactJwsRefused('malformed'). */
export function parseCompactJws(jws: string): CompactJws {
  const parts = SEGMENTS.exec(jws);
  if (!parts) throw new CompactJwsRefused('malformed', 'not a JWS in compact serialization');
  const [, headerSegment, payloadSegment, signatureSegment] = parts as unknown as [string, string, string, string];
  // RFC 4648 §5 without padding: a length of 4n + 1 is no encoding at all (jose refused it too).
  if (headerSegment.length % 4 === 1 || payloadSegment.length % 4 === 1 || signatureSegment.length % 4 === 1)
    throw new CompactJwsRefused('malformed', 'a segment is not base64url');
  return {
    header: decodeJsonSegment(headerSegment),
    signingInput: `${headerSegment}.${payloadSegment}`,
    payloadSegment,
    signatureSegment,
  };
}

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
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
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

/** What node:crypto's verify() takes for one JWS: the digest, the signing input, the key options, the signature. */
interface Verification {
  readonly digest: string | null;
  readonly input: Buffer;
  readonly options: KeyObject | { key: KeyObject; dsaEncoding?: 'ieee-p1363'; padding?: number; saltLength?: number };
  readonly signature: Buffer;
}

/** The checks before any signature is computed (throws CompactJwsRefused), and what verify() then takes. */
function verificationOf(jws: CompactJws, alg: string, key: KeyObject): Verification {
  const rule = RULES.get(alg);
  if (!rule || jws.header.alg !== alg) throw new CompactJwsRefused('signature', 'the alg is not the header one');
  // RFC 7515 §4.1.11: "If any of the listed extension Header Parameters are not understood and
  // supported by the recipient, then the JWS is invalid"; we support none.
  // The key type and curve the algorithm's (RFC 8725 §3.1): node:crypto would verify an ECDSA
  // signature with any EC key given it; KeyObject keeps its details once read.
  if (
    key.type !== 'public' ||
    key.asymmetricKeyType !== rule.keyType ||
    (rule.curve !== undefined && key.asymmetricKeyDetails?.namedCurve !== rule.curve)
  )
    throw new CompactJwsRefused('signature', `the key is not a ${alg} key`);
  if (rule.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
    throw new CompactJwsRefused('signature', `${alg} requires a key of ${MIN_RSA_BITS} bits or more`);
  if (jws.header.crit !== undefined) throw new CompactJwsRefused('signature', 'crit names an extension we do not support');
  const signature = Buffer.from(jws.signatureSegment, 'base64url');
  if (rule.signatureLength !== undefined && signature.length !== rule.signatureLength)
    throw new CompactJwsRefused('signature', 'the signature is not R || S of the curve');
  const input = Buffer.from(jws.signingInput, 'latin1');
  const options =
    rule.kty === 'EC'
      ? { key, dsaEncoding: 'ieee-p1363' as const }
      : rule.pssSalt !== undefined
        ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: rule.pssSalt }
        : rule.kty === 'RSA'
          ? { key, padding: constants.RSA_PKCS1_PADDING }
          : key;
  return { digest: rule.digest, input, options, signature };
}

const CANNOT_CHECK = 'the signature cannot be checked with this key';
const DOES_NOT_VERIFY = 'the signature does not verify';

/**
 * Verifies the signature of `jws` with `key` (made by publicKeyOf for this `alg`), on the
 * calling thread; throws CompactJwsRefused('signature') unless it verifies. The caller has
 * already checked that `alg` is the header's and one it accepts.
 */
export function verifyCompactJws(jws: CompactJws, alg: string, key: KeyObject): void {
  const { digest, input, options, signature } = verificationOf(jws, alg, key);
  let verified: boolean;
  try {
    verified = verify(digest, input, options, signature);
  } catch (err) {
    throw new CompactJwsRefused('signature', CANNOT_CHECK, { cause: err });
  }
  if (!verified) throw new CompactJwsRefused('signature', DOES_NOT_VERIFY);
}

/**
 * verifyCompactJws with the signature checked on libuv's thread pool (node:crypto's callback
 * form): the same checks and refusals, but the event loop goes on serving other requests
 * while the curve arithmetic runs on another core. A P-256 verification costs about 2.5
 * ES256 signatures (67 against 26 µs on the bench host), the largest single cost of a DPoP
 * or private_key_jwt request.
 */
export function verifyCompactJwsOnPool(jws: CompactJws, alg: string, key: KeyObject): Promise<void> {
  return new Promise((resolve, reject) => {
    const { digest, input, options, signature } = verificationOf(jws, alg, key);
    try {
      verify(digest, input, options, signature, (err, verified) => {
        if (err) reject(new CompactJwsRefused('signature', CANNOT_CHECK, { cause: err }));
        else if (!verified) reject(new CompactJwsRefused('signature', DOES_NOT_VERIFY));
        else resolve();
      });
    } catch (err) {
      reject(new CompactJwsRefused('signature', CANNOT_CHECK, { cause: err }));
    }
  });
}

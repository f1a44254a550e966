import { constants, type KeyObject, verify } from 'node:crypto';
import { type AlgorithmRule, CompactJwsRefused, MIN_RSA_BITS, RULES } from './jws-keys.js';

export { CompactJwsRefused, isVerifiableAlgorithm, jwkThumbprint, publicKeyOf } from './jws-keys.js';

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

/** What node:crypto's verify() takes for one JWS: the digest, the signing input, the key options, the signature. */
interface Verification {
  readonly digest: string | null;
  readonly input: Buffer;
  readonly options: KeyObject | { key: KeyObject; dsaEncoding?: 'ieee-p1363'; padding?: number; saltLength?: number };
  readonly signature: Buffer;
}

/**
 * The algorithm each key last passed keyFitsOrThrow for. A KeyObject never changes, so the
 * check holds for as long as the key lives; node:crypto builds a fresh details object at
 * each read of asymmetricKeyDetails (about 1 µs), and the keys come from caches (a client's
 * keys, DPoP keys), so most verifications skip it.
 */
const fittingAlg = new WeakMap<KeyObject, string>();

/** Throws CompactJwsRefused('signature') unless `key` is a public key of `alg`'s type (and curve, and size). */
function keyFitsOrThrow(key: KeyObject, alg: string, rule: AlgorithmRule): void {
  if (fittingAlg.get(key) === alg) return;
  // The key type and curve the algorithm's (RFC 8725 §3.1): node:crypto would verify an ECDSA
  // signature with any EC key given it.
  if (
    key.type !== 'public' ||
    key.asymmetricKeyType !== rule.keyType ||
    (rule.curve !== undefined && key.asymmetricKeyDetails?.namedCurve !== rule.curve)
  )
    throw new CompactJwsRefused('signature', `the key is not a ${alg} key`);
  if (rule.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
    throw new CompactJwsRefused('signature', `${alg} requires a key of ${MIN_RSA_BITS} bits or more`);
  fittingAlg.set(key, alg);
}

/** The checks before any signature is computed (throws CompactJwsRefused), and what verify() then takes. */
function verificationOf(jws: CompactJws, alg: string, key: KeyObject): Verification {
  const rule = RULES.get(alg);
  if (!rule || jws.header.alg !== alg) throw new CompactJwsRefused('signature', 'the alg is not the header one');
  keyFitsOrThrow(key, alg, rule);
  // RFC 7515 §4.1.11: "If any of the listed extension Header Parameters are not understood and
  // supported by the recipient, then the JWS is invalid"; we support none.
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

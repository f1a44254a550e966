import { constants, type KeyObject, sign, type SignKeyObjectInput, type SignPrivateKeyInput } from 'node:crypto';
import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';

/**
 * RFC 7515 compact JWS signing with node:crypto. Verification stays with jose.
 * `signCompactJws` signs on the calling thread; `CompactJwsSigner` is what access tokens
 * use: the protected header encoded once per key, one buffer per token, and the signature
 * computed on the calling thread or on libuv's thread pool (see SigningThread).
 */

/** Where signatures are computed: this thread, or libuv's thread pool (node:crypto's callback form). */
export type SigningThread = 'main-thread' | 'thread-pool';

type SignOptions = SignKeyObjectInput | SignPrivateKeyInput | KeyObject;

/** The digest and key options node:crypto's sign() needs for `alg`. */
function signParameters(alg: SigningAlgorithm, key: KeyObject): { digest: string | null; options: SignOptions } {
  switch (alg) {
    case 'ES256':
      // RFC 7518 §3.4: the signature is R || S, not DER.
      return { digest: 'sha256', options: { key, dsaEncoding: 'ieee-p1363' } };
    case 'EdDSA':
      return { digest: null, options: key };
    case 'RS256':
      return { digest: 'sha256', options: key };
    case 'PS256':
      // RFC 7518 §3.5: MGF1 with SHA-256 and a salt as long as the hash.
      return { digest: 'sha256', options: { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } };
  }
}

function encodedSegment(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Signs on the calling thread: for tools, tests and the bench's tight loop. */
export function signCompactJws(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  alg: SigningAlgorithm,
  key: KeyObject,
): string {
  const input = `${encodedSegment(header)}.${encodedSegment(payload)}`;
  const { digest, options } = signParameters(alg, key);
  return `${input}.${sign(digest, Buffer.from(input), options).toString('base64url')}`;
}

/**
 * Signs JWS with one key and one protected header, the header encoded once. `sign` takes
 * the payload as JSON text (the caller builds it directly) and returns the compact JWS.
 */
export class CompactJwsSigner {
  /** BASE64URL(UTF8(JWS Protected Header)) || '.' (RFC 7515 §7.1). */
  private readonly headerPrefix: string;
  private readonly digest: string | null;
  private readonly options: SignOptions;

  constructor(
    header: Record<string, unknown>,
    alg: SigningAlgorithm,
    key: KeyObject,
    private readonly thread: SigningThread,
  ) {
    this.headerPrefix = `${encodedSegment(header)}.`;
    ({ digest: this.digest, options: this.options } = signParameters(alg, key));
  }

  async sign(payloadJson: string): Promise<string> {
    // RFC 7515 §5.1: the signing input is ASCII(BASE64URL(header) || '.' || BASE64URL(payload)).
    const input = this.headerPrefix + Buffer.from(payloadJson).toString('base64url');
    const signature = this.thread === 'main-thread' ? this.signHere(input) : await this.signOnPool(input);
    return `${input}.${signature.toString('base64url')}`;
  }

  private signHere(input: string): Buffer {
    return sign(this.digest, Buffer.from(input, 'latin1'), this.options);
  }

  private signOnPool(input: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      sign(this.digest, Buffer.from(input, 'latin1'), this.options, (err, signature) => (err ? reject(err) : resolve(signature)));
    });
  }
}

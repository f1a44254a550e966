import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-SHA256 signed, expiring values for the browser side: the session cookie, the
 * authorization request carried through the login and consent forms, CSRF tokens, the
 * mark of a sign-in made for one authorization request, the sign-out request, what binds a
 * sign-in at an upstream provider to the browser that started it, and the sign-out to resume
 * when an upstream provider's own sign-out comes back.
 * Each purpose signs with its own key derived from SESSION_SECRET (HKDF), so a value
 * minted for one purpose is never accepted for another. Values are signed, not
 * encrypted: they must hold nothing secret (what must not be read, such as the subject of
 * a sign-in mark, is bound by a MAC and never carried). What the browser must not read (the
 * console's tokens, its sign-in's PKCE verifier) is sealed instead: AES-256-GCM under a key of
 * its own purpose, derived from the same secret, so every instance opens what another sealed.
 */
export type SignedPurpose =
  | 'session'
  | 'interaction'
  | 'csrf'
  | 'sign-in'
  | 'logout'
  | 'upstream-browser'
  | 'upstream-sign-out'
  /** The console's client secret at our own token endpoint (src/console/client.ts). */
  | 'console-client';

/** What is sealed (encrypted and authenticated), never only signed. */
export type SealedPurpose = 'console-session' | 'console-sign-in';

const SIGNED: readonly SignedPurpose[] = [
  'session',
  'interaction',
  'csrf',
  'sign-in',
  'logout',
  'upstream-browser',
  'upstream-sign-out',
  'console-client',
];
const SEALED: readonly SealedPurpose[] = ['console-session', 'console-sign-in'];
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class Signer {
  private readonly keys: ReadonlyMap<SignedPurpose, Buffer>;
  private readonly sealingKeys: ReadonlyMap<SealedPurpose, Buffer>;

  constructor(secret: string | Buffer) {
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'oauth2-token-service', info, 32));
    this.keys = new Map(SIGNED.map((p) => [p, derive(p)]));
    this.sealingKeys = new Map(SEALED.map((p) => [p, derive(`sealed:${p}`)]));
  }

  static withRandomSecret(): Signer {
    return new Signer(randomBytes(32));
  }

  /** `<base64url JSON>.<base64url MAC>`; `expiresAt` in seconds since the epoch. */
  sign(purpose: SignedPurpose, payload: unknown, expiresAt: number): string {
    const body = Buffer.from(JSON.stringify({ v: payload, exp: expiresAt })).toString('base64url');
    return `${body}.${this.mac(purpose, body).toString('base64url')}`;
  }

  /** The payload, or undefined when the value is malformed, forged, for another purpose, or expired. */
  verify<T>(purpose: SignedPurpose, value: string | undefined, now: number): T | undefined {
    if (!value) return undefined;
    const dot = value.indexOf('.');
    if (dot <= 0) return undefined;
    const body = value.slice(0, dot);
    const presented = Buffer.from(value.slice(dot + 1), 'base64url');
    const expected = this.mac(purpose, body);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
    try {
      const { v, exp } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { v: T; exp: number };
      return typeof exp === 'number' && now < exp ? v : undefined;
    } catch {
      return undefined;
    }
  }

  /** `<base64url IV | ciphertext | tag>`: readable by no one without the secret, opened only for `purpose`. */
  seal(purpose: SealedPurpose, payload: unknown, expiresAt: number): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealingKeys.get(purpose) as Buffer, iv).setAAD(Buffer.from(purpose));
    const text = Buffer.from(JSON.stringify({ v: payload, exp: expiresAt }));
    return Buffer.concat([iv, cipher.update(text), cipher.final(), cipher.getAuthTag()]).toString('base64url');
  }

  /** The payload, or undefined when the value is malformed, altered, sealed for another purpose, or expired. */
  open<T>(purpose: SealedPurpose, value: string | undefined, now: number): T | undefined {
    if (!value || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
    const bytes = Buffer.from(value, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealingKeys.get(purpose) as Buffer, bytes.subarray(0, IV_BYTES))
        .setAAD(Buffer.from(purpose))
        .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
      const { v, exp } = JSON.parse(text.toString('utf8')) as { v: T; exp: number };
      return typeof exp === 'number' && now < exp ? v : undefined;
    } catch {
      return undefined;
    }
  }

  /** A MAC of `value` alone, for tokens that need no payload (CSRF bound to a cookie). */
  macOf(purpose: SignedPurpose, value: string): string {
    return this.mac(purpose, value).toString('base64url');
  }

  /** Whether `presented` is macOf(purpose, value), compared in constant time. */
  isMacOf(purpose: SignedPurpose, value: string, presented: string | undefined): boolean {
    if (presented === undefined) return false;
    const expected = Buffer.from(this.macOf(purpose, value));
    const given = Buffer.from(presented);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private mac(purpose: SignedPurpose, data: string): Buffer {
    return createHmac('sha256', this.keys.get(purpose) as Buffer)
      .update(data)
      .digest();
  }
}

import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { RefreshFamilyRecord, RefreshFamilyStore } from '../store/types.js';
import { type PresentedRefreshToken, type RefreshTokenHead, refreshTokenValue } from './refresh-token-format.js';
import { openUnder, sealUnder } from './sealed-response.js';

/**
 * What is sealed under the refresh-token key K (32 bytes, kept by the store and shared by
 * every instance). Two subkeys are derived from K once, with HKDF-SHA256:
 *
 * - family data: each token's immutable family data (client, sub, scope, resources,
 *   auth_time, DPoP jkt) is sealed with AES-256-GCM, the token's head as additional data.
 *   The GCM key and IV of a token are HMAC-SHA512(subkey, head): each head carries a fresh
 *   256-bit nonce and is sealed once, so no key and IV pair ever repeats, however many
 *   tokens are minted (one key with random IVs is limited to 2^32 seals, NIST SP 800-38D
 *   §8.3, which a large deployment would reach). A value that does not open is not ours:
 *   it is refused before the store is asked anything, so knowing a grant id (access tokens
 *   carry it) is never enough to touch a family.
 * - grace response: the successor response kept for the grace window is sealed under
 *   HMAC-SHA256(subkey, presented head), with a random IV. The nonce is in no store, so a
 *   dump of the store opens nothing; the client retrying with its token can open its own.
 */

const TAG_BYTES = 16;
const IV_BYTES = 12;

/** The session of the grant: its browser session id and sign-in methods (OpenID Connect), sealed since ID tokens. */
type SessionData = [sid: string | null, amr: string[]];

type FamilyData = [
  clientId: string,
  sub: string,
  scope: string[],
  resources: string[],
  authTime: number,
  jkt?: string | null,
  session?: SessionData,
];

const strings = (list: unknown) => Array.isArray(list) && list.every((item) => typeof item === 'string');

function isSessionData(value: unknown): value is SessionData {
  return Array.isArray(value) && value.length === 2 && (value[0] === null || typeof value[0] === 'string') && strings(value[1]);
}

/** Tokens sealed before sessions were (5 or 6 members) still open. */
function isFamilyData(value: unknown): value is FamilyData {
  if (!Array.isArray(value) || value.length < 5 || value.length > 7) return false;
  const [clientId, sub, scope, resources, authTime, jkt, session] = value as unknown[];
  return (
    typeof clientId === 'string' &&
    typeof sub === 'string' &&
    strings(scope) &&
    strings(resources) &&
    Number.isSafeInteger(authTime) &&
    (jkt === undefined || jkt === null || typeof jkt === 'string') &&
    (session === undefined || isSessionData(session))
  );
}

export class RefreshTokenSealer {
  // KeyObjects: an HMAC keyed with one skips copying and importing the key at each token.
  private readonly familyKey: KeyObject;
  private readonly graceKey: KeyObject;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the refresh-token key must be 32 bytes');
    this.familyKey = createSecretKey(Buffer.from(hkdfSync('sha256', key, '', 'oauth2 refresh token: family data', 32)));
    this.graceKey = createSecretKey(Buffer.from(hkdfSync('sha256', key, '', 'oauth2 refresh token: grace response', 32)));
  }

  /** The complete refresh token of `head`, carrying the family data. */
  seal(head: RefreshTokenHead, family: RefreshFamilyRecord): string {
    const data: FamilyData = [family.clientId, family.sub, [...family.scope], [...(family.resources ?? [])], family.authTime];
    const session = family.sid !== undefined || (family.amr?.length ?? 0) > 0;
    if (family.jkt !== undefined || session) data.push(family.jkt ?? null);
    if (session) data.push([family.sid ?? null, [...(family.amr ?? [])]]);
    const { key, iv } = this.tokenCipher(head.head);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(head.head, 'latin1'));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(data), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return refreshTokenValue(head, ciphertext.toString('base64url'));
  }

  /** The family data of a presented token, or undefined when it was not sealed under this key for this head. */
  open(token: PresentedRefreshToken): RefreshFamilyRecord | undefined {
    const raw = Buffer.from(token.sealed, 'base64url');
    if (raw.length <= TAG_BYTES) return undefined;
    const { key, iv } = this.tokenCipher(token.head);
    let plaintext: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(token.head, 'latin1'));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      plaintext = Buffer.concat([decipher.update(raw.subarray(0, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
    const data: unknown = JSON.parse(plaintext);
    if (!isFamilyData(data)) return undefined;
    const [clientId, sub, scope, resources, authTime, jkt, session] = data;
    return {
      clientId,
      sub,
      scope,
      resources,
      authTime,
      ...(typeof jkt === 'string' ? { jkt } : {}),
      ...(typeof session?.[0] === 'string' ? { sid: session[0] } : {}),
      ...(session && session[1].length > 0 ? { amr: session[1] } : {}),
    };
  }

  /** Seals the successor response under a key only the presented token yields. */
  sealResponse(presented: RefreshTokenHead, plaintext: string): string {
    return sealUnder(this.responseKey(presented), plaintext);
  }

  /** The sealed response, or undefined when the presented token does not open it. */
  openResponse(presented: RefreshTokenHead, sealed: string): string | undefined {
    return openUnder(this.responseKey(presented), sealed);
  }

  private tokenCipher(head: string): { key: Buffer; iv: Buffer } {
    const derived = createHmac('sha512', this.familyKey).update(head, 'latin1').digest();
    return { key: derived.subarray(0, 32), iv: derived.subarray(32, 32 + IV_BYTES) };
  }

  private responseKey(presented: RefreshTokenHead): Buffer {
    return createHmac('sha256', this.graceKey).update(presented.head, 'latin1').digest();
  }
}

/** How often a process checks that the store still holds the key it seals with. */
const KEY_RECHECK_MS = 60_000;

/**
 * The sealer, made on first use from the key the store holds (so starting needs no
 * store), then kept: no store access per request. A failed read is not kept: the next
 * request asks again. Once a minute, in the background (no request waits for it), the
 * process offers its key to the store again: should the store have lost it (a Redis
 * restarted without persistence, a FLUSHALL), the first process to notice writes the key
 * back, the same one every process holds, so tokens keep opening everywhere; should another
 * key be in force, the process switches to it.
 */
export class RefreshTokenSealing {
  private pending: Promise<RefreshTokenSealer> | undefined;
  private current: { readonly key: Buffer; readonly sealer: RefreshTokenSealer; checkedAt: number } | undefined;
  private rechecking = false;

  constructor(
    private readonly store: Pick<RefreshFamilyStore, 'refreshTokenKey'>,
    private readonly clock: Clock = Date.now,
  ) {}

  sealer(): Promise<RefreshTokenSealer> {
    const { current } = this;
    if (current && this.clock() - current.checkedAt >= KEY_RECHECK_MS && !this.rechecking) this.recheck(current.key);
    if (!this.pending) {
      const loading = this.load();
      this.pending = loading;
      loading.catch(() => {
        if (this.pending === loading) this.pending = undefined;
      });
    }
    return this.pending;
  }

  private async load(candidate?: Buffer): Promise<RefreshTokenSealer> {
    const key = await this.store.refreshTokenKey(candidate);
    if (this.current?.key.equals(key)) {
      this.current.checkedAt = this.clock();
      return this.current.sealer;
    }
    const sealer = new RefreshTokenSealer(key);
    this.current = { key, sealer, checkedAt: this.clock() };
    return sealer;
  }

  private recheck(key: Buffer): void {
    this.rechecking = true;
    this.load(key)
      .then((sealer) => {
        this.pending = Promise.resolve(sealer);
      })
      // The store is unreachable: keep sealing with the key held, and try again at the next request.
      .catch(() => undefined)
      .finally(() => {
        this.rechecking = false;
      });
  }
}

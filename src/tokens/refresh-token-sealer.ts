import { createDecipheriv, createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { RefreshFamilyRecord, RefreshFamilyStore } from '../store/types.js';
import { type PresentedRefreshToken, type RefreshTokenHead, refreshTokenValue } from './refresh-token-format.js';
import { openUnder, sealUnder } from './sealed-response.js';

/**
 * What is sealed under the refresh-token key K (32 bytes, kept by the store and shared by
 * every instance). Subkeys are derived from K once, with HKDF-SHA256:
 *
 * - family data: a family's immutable data (client, sub, scope, resources, auth_time, DPoP
 *   jkt, session) is sealed once, when the family starts, with AES-256-GCM under the key
 *   HMAC-SHA256(subkey, grant id), a random IV and the grant id as additional data. Every
 *   token of the family carries that same seal: a rotation opens the presented token's and
 *   hands it on to the successor, encrypting nothing (NIST SP 800-38D §8.3's limit of 2^32
 *   random IVs applies per key, so per family, where a handful of seals are ever made).
 *   A value that does not open is not ours: it is refused before the store is asked
 *   anything, so knowing a grant id (access tokens carry it) is never enough to touch a
 *   family; which token of the family it is, the store decides by the head's digest.
 * - family data, before seals were per family (tokens still in circulation): sealed per
 *   token, under the key and IV HMAC-SHA512(subkey, head), the head as additional data.
 *   They still open; their successor gets a per-family seal.
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

/** The family data of a plaintext seal, or undefined when it is not family data. */
function familyOf(plaintext: string): RefreshFamilyRecord | undefined {
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

/** A presented token's family data, and whether its seal is per family (see RefreshTokenSealer). */
export interface OpenedRefreshToken {
  readonly family: RefreshFamilyRecord;
  readonly sealedForGrant: boolean;
}

export class RefreshTokenSealer {
  // KeyObjects: an HMAC keyed with one skips copying and importing the key at each token.
  private readonly grantKey: KeyObject;
  private readonly headKey: KeyObject;
  private readonly graceKey: KeyObject;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the refresh-token key must be 32 bytes');
    const subkey = (info: string) => createSecretKey(Buffer.from(hkdfSync('sha256', key, '', info, 32)));
    this.grantKey = subkey('oauth2 refresh token: family data of a grant');
    this.headKey = subkey('oauth2 refresh token: family data');
    this.graceKey = subkey('oauth2 refresh token: grace response');
  }

  /** The complete refresh token of `head`, carrying the family data, sealed for its grant. */
  seal(head: RefreshTokenHead, family: RefreshFamilyRecord): string {
    const data: FamilyData = [family.clientId, family.sub, [...family.scope], [...(family.resources ?? [])], family.authTime];
    const session = family.sid !== undefined || (family.amr?.length ?? 0) > 0;
    if (family.jkt !== undefined || session) data.push(family.jkt ?? null);
    if (session) data.push([family.sid ?? null, [...(family.amr ?? [])]]);
    return refreshTokenValue(head, sealUnder(this.grantCipherKey(head.grantId), JSON.stringify(data), head.grantId));
  }

  /** The family data of a presented token, or undefined when it was not sealed under this key for its grant. */
  open(token: PresentedRefreshToken): RefreshFamilyRecord | undefined {
    return this.openSealed(token)?.family;
  }

  /**
   * The successor of `presented` (opened by openSealed) with the head `head`: the presented
   * token's seal handed on when it is per family, else the family sealed afresh.
   */
  successor(head: RefreshTokenHead, presented: PresentedRefreshToken, opened: OpenedRefreshToken): string {
    return opened.sealedForGrant ? refreshTokenValue(head, presented.sealed) : this.seal(head, opened.family);
  }

  /** The family data of a presented token, and whether its seal is per family (one a successor can carry on). */
  openSealed(token: PresentedRefreshToken): OpenedRefreshToken | undefined {
    const forGrant = openUnder(this.grantCipherKey(token.grantId), token.sealed, token.grantId);
    const plaintext = forGrant ?? this.openSealedForHead(token);
    if (plaintext === undefined) return undefined;
    const family = familyOf(plaintext);
    return family && { family, sealedForGrant: forGrant !== undefined };
  }

  /** A token sealed before seals were per family: under the key and IV of its own head. */
  private openSealedForHead(token: PresentedRefreshToken): string | undefined {
    const raw = Buffer.from(token.sealed, 'base64url');
    if (raw.length <= TAG_BYTES) return undefined;
    const derived = createHmac('sha512', this.headKey).update(token.head, 'latin1').digest();
    try {
      const decipher = createDecipheriv('aes-256-gcm', derived.subarray(0, 32), derived.subarray(32, 32 + IV_BYTES));
      decipher.setAAD(Buffer.from(token.head, 'latin1'));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(0, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  /** Seals the successor response under a key only the presented token yields. */
  sealResponse(presented: RefreshTokenHead, plaintext: string): string {
    return sealUnder(this.responseKey(presented), plaintext);
  }

  /** The sealed response, or undefined when the presented token does not open it. */
  openResponse(presented: RefreshTokenHead, sealed: string): string | undefined {
    return openUnder(this.responseKey(presented), sealed);
  }

  private grantCipherKey(grantId: string): Buffer {
    return createHmac('sha256', this.grantKey).update(grantId, 'latin1').digest();
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

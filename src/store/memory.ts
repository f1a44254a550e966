import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import type {
  AuthorizationCodeRecord,
  CodeRedemption,
  FirstRefreshToken,
  OpaqueTokenRef,
  RedemptionOutcome,
  RefreshFamilyState,
  RefreshTokenRef,
  RotationOptions,
  RotationOutcome,
  Store,
} from './types.js';
import { MemoryConsents, MemoryGrantIndex } from './memory-grants.js';
import { MemoryClientRegistrations, type RegistrationEntry } from './memory-registrations.js';
import { MemoryAttemptCounter } from './memory-attempts.js';
import { type Expiring, ExpiringMap } from './expiring-map.js';
import { MemoryReplays } from './memory-replays.js';
import { MemoryUpstream } from './memory-upstream.js';
import { MemoryDeviceCodes } from './memory-devices.js';
import { MemoryEntries } from './memory-entries.js';
import type { CodeEntry, FamilyEntry, GraceEntry } from './memory-records.js';

/**
 * The embedded default: single-process, lost on restart. JavaScript runs one call at
 * a time, so every check-and-update here is atomic without locks. Expired entries are
 * dropped on access and by a periodic sweep, so memory stays bounded.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  private readonly codes: ExpiringMap<CodeEntry>;
  private readonly families: ExpiringMap<FamilyEntry>;
  readonly attempts: MemoryAttemptCounter;
  private readonly graceResponses: ExpiringMap<GraceEntry>;
  /** The refresh-token key: one per process, as nothing of a memory store outlives it. */
  private readonly refreshKey = randomBytes(32);
  private readonly denylist: ExpiringMap<Expiring>;
  private readonly replays: MemoryReplays;
  private readonly registrations: ExpiringMap<RegistrationEntry>;
  readonly clientRegistrations: MemoryClientRegistrations;
  readonly grantIndex: MemoryGrantIndex;
  readonly consents: MemoryConsents;
  readonly upstream: MemoryUpstream;
  readonly deviceCodes: MemoryDeviceCodes;
  readonly entries: MemoryEntries;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly clock: Clock = systemClock,
    sweepIntervalMs = 60_000,
  ) {
    this.codes = new ExpiringMap(clock);
    this.families = new ExpiringMap(clock);
    this.attempts = new MemoryAttemptCounter(clock);
    this.graceResponses = new ExpiringMap(clock);
    this.denylist = new ExpiringMap(clock);
    this.replays = new MemoryReplays(clock);
    this.registrations = new ExpiringMap(clock);
    this.clientRegistrations = new MemoryClientRegistrations(this.registrations, clock);
    this.grantIndex = new MemoryGrantIndex(clock);
    this.consents = new MemoryConsents(clock);
    this.deviceCodes = new MemoryDeviceCodes(clock);
    this.entries = new MemoryEntries(clock);
    this.upstream = new MemoryUpstream(clock, (grantId) => this.families.get(grantId)?.revoked === true);
    this.sweeper = setInterval(() => {
      for (const map of this.maps()) map.sweep();
      this.grantIndex.sweep();
      this.consents.sweep();
    }, sweepIntervalMs);
    this.sweeper.unref();
  }

  async saveAuthorizationCode(code: OpaqueTokenRef, record: AuthorizationCodeRecord, ttlSeconds: number): Promise<void> {
    this.codes.set(tokenKey(code), { record, expiresAt: this.expiry(ttlSeconds), used: false });
  }

  async redeemAuthorizationCode(code: OpaqueTokenRef, redemption: CodeRedemption): Promise<RedemptionOutcome> {
    const entry = this.codes.get(tokenKey(code));
    if (!entry) return { status: 'not_found' };
    if (entry.used) {
      await this.revokeGrant(code.grantId, redemption.revocationMarkSeconds);
      return { status: 'replayed', record: entry.record };
    }
    entry.used = true;
    const first = redemption.firstRefreshToken;
    const familyStarted = first !== undefined && this.startFamily(code.grantId, first);
    return { status: 'consumed', record: entry.record, familyStarted };
  }

  async refreshTokenKey(): Promise<Buffer> {
    return this.refreshKey;
  }

  async startRefreshFamily(grantId: string, first: FirstRefreshToken): Promise<boolean> {
    return this.startFamily(grantId, first);
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    const family = this.families.get(grantId);
    const expiresAt = Math.max(family?.expiresAt ?? 0, this.expiry(ttlSeconds));
    if (family) {
      family.revoked = true;
      family.expiresAt = expiresAt;
    } else {
      const mark = { generation: undefined, current: '', previous: undefined, idleDeadline: 0, issuedAt: 0 };
      this.families.set(grantId, { ...mark, revoked: true, expiresAt });
    }
    await this.upstream.deleteUpstreamTokens({ grantId });
  }

  async revokeKnownGrant(grantId: string, ttlSeconds: number): Promise<boolean> {
    if (!this.families.get(grantId) && !this.grantIndex.knows(grantId)) return false;
    await this.revokeGrant(grantId, ttlSeconds);
    return true;
  }

  async isGrantRevoked(grantId: string): Promise<boolean> {
    return this.families.get(grantId)?.revoked === true;
  }

  async readRefreshFamily(grantId: string): Promise<RefreshFamilyState | undefined> {
    const family = this.families.get(grantId);
    if (family?.generation === undefined) return undefined;
    return {
      generation: family.generation,
      currentDigest: family.current,
      revoked: family.revoked,
      issuedAt: family.issuedAt,
      expiresAt: Math.min(family.idleDeadline, family.expiresAt),
    };
  }

  /** ROTATE_REFRESH_FAMILY (src/store/lua.ts), step for step. */
  async rotateRefreshFamily(
    presented: RefreshTokenRef,
    successorDigest: string,
    sealedResponse: string,
    options: RotationOptions,
  ): Promise<RotationOutcome> {
    const family = this.families.get(presented.grantId);
    if (family?.generation === undefined || family.revoked) return { status: 'invalid' };
    const { generation } = family;
    if (presented.generation > generation) return { status: 'invalid' };
    const now = this.clock();
    if (presented.generation === generation) {
      if (family.current !== presented.digest || family.idleDeadline <= now) return { status: 'invalid' };
      Object.assign(family, {
        generation: generation + 1,
        current: successorDigest,
        previous: presented.digest,
        idleDeadline: now + options.idleSeconds * 1000,
        issuedAt: now,
      });
      this.graceResponses.delete(presented.grantId);
      if (options.graceSeconds > 0)
        this.graceResponses.set(presented.grantId, { sealed: sealedResponse, used: false, expiresAt: this.expiry(options.graceSeconds) });
      return { status: 'rotated' };
    }
    const grace = this.graceResponses.get(presented.grantId);
    if (presented.generation === generation - 1 && family.previous === presented.digest && grace && !grace.used) {
      grace.used = true;
      return { status: 'grace', sealedResponse: grace.sealed };
    }
    family.revoked = true;
    this.graceResponses.delete(presented.grantId);
    return { status: 'reused' };
  }

  async denylistAccessToken(jti: string, ttlSeconds: number): Promise<void> {
    this.denylist.set(jti, { expiresAt: this.expiry(Math.max(1, ttlSeconds)) });
  }

  async isAccessTokenDenylisted(jti: string): Promise<boolean> {
    return this.denylist.get(jti) !== undefined;
  }

  rememberDpopProof(jkt: string, jti: string, ttlSeconds: number): Promise<boolean> {
    return this.replays.rememberDpopProof(jkt, jti, ttlSeconds);
  }

  rememberClientAssertion(clientId: string, jti: string, ttlSeconds: number): Promise<boolean> {
    return this.replays.rememberClientAssertion(clientId, jti, ttlSeconds);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const map of this.maps()) map.clear();
    this.grantIndex.clear();
    this.consents.clear();
  }

  private maps(): ExpiringMap<Expiring>[] {
    return [
      this.codes,
      this.families,
      ...this.attempts.maps(),
      this.graceResponses,
      this.denylist,
      this.replays.seen,
      this.registrations,
      ...this.upstream.maps(),
      ...this.deviceCodes.maps(),
    ];
  }

  /** Starts a family unless its key exists (a revocation mark): START_REFRESH_FAMILY. */
  private startFamily(grantId: string, first: FirstRefreshToken): boolean {
    if (this.families.get(grantId)) return false;
    const now = this.clock();
    this.families.set(grantId, {
      generation: 0,
      current: first.digest,
      previous: undefined,
      idleDeadline: now + first.lifetimes.idleSeconds * 1000,
      issuedAt: now,
      revoked: false,
      expiresAt: this.expiry(first.lifetimes.absoluteSeconds),
    });
    return true;
  }

  private expiry(seconds: number): number {
    return this.clock() + seconds * 1000;
  }
}

function tokenKey(ref: OpaqueTokenRef): string {
  return `${ref.grantId}:${ref.digest}`;
}

import { type Clock, systemClock } from '../clock.js';
import type {
  AttemptReservation,
  AuthorizationCodeRecord,
  ConsumeOutcome,
  OpaqueTokenRef,
  RefreshFamilyRecord,
  RefreshLifetimes,
  RefreshTokenView,
  RotationOutcome,
  Store,
} from './types.js';
import { MemoryConsents, MemoryGrantIndex } from './memory-grants.js';
import { MemoryClientRegistrations, type RegistrationEntry } from './memory-registrations.js';
import { secondsLeft } from './window.js';
import { type Expiring, ExpiringMap } from './expiring-map.js';
import { dpopProofKey } from './dpop-proof-key.js';

interface CodeEntry extends Expiring {
  readonly record: AuthorizationCodeRecord;
  used: boolean;
}

interface FamilyEntry extends Expiring {
  readonly record: RefreshFamilyRecord | undefined;
  revoked: boolean;
  current: string | undefined;
}

interface TokenEntry extends Expiring {
  readonly issuedAt: number;
  successor?: string;
  graceUsed?: boolean;
}

interface SealedEntry extends Expiring {
  readonly sealed: string;
}

interface CounterEntry extends Expiring {
  count: number;
}

/**
 * The embedded default: single-process, lost on restart. JavaScript runs one call at
 * a time, so every check-and-update here is atomic without locks. Expired entries are
 * dropped on access and by a periodic sweep, so memory stays bounded.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  private readonly codes: ExpiringMap<CodeEntry>;
  private readonly families: ExpiringMap<FamilyEntry>;
  private readonly refreshTokens: ExpiringMap<TokenEntry>;
  private readonly counters: ExpiringMap<CounterEntry>;
  private readonly graceResponses: ExpiringMap<SealedEntry>;
  private readonly denylist: ExpiringMap<Expiring>;
  private readonly dpopProofs: ExpiringMap<Expiring>;
  private readonly registrations: ExpiringMap<RegistrationEntry>;
  readonly clientRegistrations: MemoryClientRegistrations;
  readonly grantIndex: MemoryGrantIndex;
  readonly consents: MemoryConsents;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly clock: Clock = systemClock,
    sweepIntervalMs = 60_000,
  ) {
    this.codes = new ExpiringMap(clock);
    this.families = new ExpiringMap(clock);
    this.refreshTokens = new ExpiringMap(clock);
    this.counters = new ExpiringMap(clock);
    this.graceResponses = new ExpiringMap(clock);
    this.denylist = new ExpiringMap(clock);
    this.dpopProofs = new ExpiringMap(clock);
    this.registrations = new ExpiringMap(clock);
    this.clientRegistrations = new MemoryClientRegistrations(this.registrations, clock);
    this.grantIndex = new MemoryGrantIndex(clock);
    this.consents = new MemoryConsents(clock);
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

  async consumeAuthorizationCode(code: OpaqueTokenRef): Promise<ConsumeOutcome<AuthorizationCodeRecord>> {
    const entry = this.codes.get(tokenKey(code));
    if (!entry) return { status: 'not_found' };
    if (entry.used) return { status: 'replayed', record: entry.record };
    entry.used = true;
    return { status: 'consumed', record: entry.record };
  }

  async createRefreshFamily(
    grantId: string,
    record: RefreshFamilyRecord,
    firstToken: OpaqueTokenRef,
    lifetimes: RefreshLifetimes,
  ): Promise<boolean> {
    if (this.families.get(grantId)) return false;
    const familyExpiry = this.expiry(lifetimes.absoluteSeconds);
    this.families.set(grantId, { record, revoked: false, current: firstToken.digest, expiresAt: familyExpiry });
    this.refreshTokens.set(tokenKey(firstToken), {
      issuedAt: this.clock(),
      expiresAt: Math.min(familyExpiry, this.expiry(lifetimes.idleSeconds)),
    });
    return true;
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    const family = this.families.get(grantId);
    const expiresAt = Math.max(family?.expiresAt ?? 0, this.expiry(ttlSeconds));
    if (family) {
      family.revoked = true;
      family.expiresAt = expiresAt;
    } else {
      this.families.set(grantId, { record: undefined, revoked: true, current: undefined, expiresAt });
    }
  }

  async isGrantRevoked(grantId: string): Promise<boolean> {
    return this.families.get(grantId)?.revoked === true;
  }

  async readRefreshToken(token: OpaqueTokenRef): Promise<RefreshTokenView | undefined> {
    const family = this.families.get(token.grantId);
    const entry = this.refreshTokens.get(tokenKey(token));
    if (!family?.record || !entry) return undefined;
    const state = family.revoked ? 'revoked' : family.current === token.digest ? 'current' : 'rotated';
    return { family: family.record, state, issuedAt: entry.issuedAt, expiresAt: entry.expiresAt };
  }

  async rotateRefreshToken(
    presented: OpaqueTokenRef,
    successor: OpaqueTokenRef,
    sealedResponse: string,
    options: { idleSeconds: number; graceSeconds: number },
  ): Promise<RotationOutcome> {
    const family = this.families.get(presented.grantId);
    const entry = this.refreshTokens.get(tokenKey(presented));
    if (!family?.record || family.revoked || !entry) return { status: 'invalid' };
    const graceKey = tokenKey(presented);
    if (family.current === presented.digest) {
      this.refreshTokens.set(tokenKey(successor), {
        issuedAt: this.clock(),
        expiresAt: Math.min(family.expiresAt, this.expiry(options.idleSeconds)),
      });
      family.current = successor.digest;
      entry.successor = successor.digest;
      entry.expiresAt = family.expiresAt; // remembered while the family lives, to catch a late reuse
      if (options.graceSeconds > 0)
        this.graceResponses.set(graceKey, { sealed: sealedResponse, expiresAt: this.expiry(options.graceSeconds) });
      return { status: 'rotated' };
    }
    if (entry.successor === undefined) return { status: 'invalid' };
    const grace = this.graceResponses.get(graceKey);
    if (grace && entry.successor === family.current && !entry.graceUsed) {
      entry.graceUsed = true;
      return { status: 'grace', sealedResponse: grace.sealed };
    }
    family.revoked = true;
    this.graceResponses.delete(graceKey);
    return { status: 'reused' };
  }

  async denylistAccessToken(jti: string, ttlSeconds: number): Promise<void> {
    this.denylist.set(jti, { expiresAt: this.expiry(Math.max(1, ttlSeconds)) });
  }

  async isAccessTokenDenylisted(jti: string): Promise<boolean> {
    return this.denylist.get(jti) !== undefined;
  }

  async rememberDpopProof(jkt: string, jti: string, ttlSeconds: number): Promise<boolean> {
    const key = dpopProofKey(jkt, jti);
    if (this.dpopProofs.get(key)) return false;
    this.dpopProofs.set(key, { expiresAt: this.expiry(ttlSeconds) });
    return true;
  }

  async reserveAttempt(key: string, limit: number, windowSeconds: number): Promise<AttemptReservation> {
    const entry = this.counters.get(key);
    if (!entry) {
      this.counters.set(key, { count: 1, expiresAt: this.expiry(windowSeconds) });
      return { reserved: true };
    }
    if (entry.count >= limit) return { reserved: false, retryAfterSeconds: secondsLeft(entry.expiresAt - this.clock()) };
    entry.count += 1;
    return { reserved: true };
  }

  async releaseAttempt(key: string): Promise<void> {
    const entry = this.counters.get(key);
    if (entry && entry.count > 1) entry.count -= 1;
    else this.counters.delete(key);
  }

  async clearAttempts(key: string): Promise<void> {
    this.counters.delete(key);
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
      this.refreshTokens,
      this.counters,
      this.graceResponses,
      this.denylist,
      this.dpopProofs,
      this.registrations,
    ];
  }

  private expiry(seconds: number): number {
    return this.clock() + seconds * 1000;
  }
}

function tokenKey(ref: OpaqueTokenRef): string {
  return `${ref.grantId}:${ref.digest}`;
}

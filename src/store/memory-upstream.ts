import type { Clock } from '../clock.js';
import { type Expiring, ExpiringMap } from './expiring-map.js';
import type { FederatedUser, FederatedUserPage, TakenUpstreamSignIn, UpstreamStore, UpstreamTokenHolder } from './upstream-types.js';

interface ValueEntry<V> extends Expiring {
  readonly value: V;
}

/** The key of a holder's tokens: a session's and a grant's never meet. */
export function holderKey(holder: UpstreamTokenHolder): string {
  return 'grantId' in holder ? `grant:${holder.grantId}` : `session:${holder.sessionId}`;
}

const listed = ({ sub, provider, lastSignInAt, expiresAt }: FederatedUser): FederatedUser => ({ sub, provider, lastSignInAt, expiresAt });

/** UpstreamStore in memory: one call at a time, so every check-and-update is atomic without locks. */
export class MemoryUpstream implements UpstreamStore {
  private readonly signIns: ExpiringMap<ValueEntry<string> & { readonly binding: string }>;
  private readonly profiles: ExpiringMap<ValueEntry<Readonly<Record<string, unknown>>> & Omit<FederatedUser, 'expiresAt'>>;
  private readonly tokens: ExpiringMap<ValueEntry<string>>;

  constructor(
    private readonly clock: Clock,
    /** Whether the grant carries a revocation mark (its family's, in MemoryStore). */
    private readonly isGrantRevoked: (grantId: string) => boolean,
  ) {
    this.signIns = new ExpiringMap(clock);
    this.profiles = new ExpiringMap(clock);
    this.tokens = new ExpiringMap(clock);
  }

  async saveUpstreamSignIn(stateDigest: string, binding: string, sealed: string, ttlSeconds: number): Promise<void> {
    this.signIns.set(stateDigest, { value: sealed, binding, expiresAt: this.expiry(ttlSeconds) });
  }

  async takeUpstreamSignIn(stateDigest: string, binding: string): Promise<TakenUpstreamSignIn> {
    const entry = this.signIns.get(stateDigest);
    if (!entry) return 'unknown';
    if (entry.binding !== binding) return 'elsewhere';
    this.signIns.delete(stateDigest);
    return { sealed: entry.value };
  }

  async saveFederatedProfile(sub: string, profile: Readonly<Record<string, unknown>>, ttlSeconds: number, provider: string): Promise<void> {
    const lastSignInAt = Math.floor(this.clock() / 1000);
    this.profiles.set(sub, { value: structuredClone(profile), expiresAt: this.expiry(ttlSeconds), sub, provider, lastSignInAt });
  }

  async listFederatedUsers(page: { readonly after?: string | undefined; readonly limit: number }): Promise<FederatedUserPage> {
    const { after } = page;
    const rest = this.profiles.live().filter(([sub]) => after === undefined || Buffer.compare(Buffer.from(sub), Buffer.from(after)) > 0);
    const users = rest.slice(0, page.limit).map(([, entry]) => listed(entry));
    const last = users[users.length - 1];
    return rest.length > page.limit && last ? { users, next: last.sub } : { users };
  }

  async countFederatedUsers(): Promise<number> {
    return this.profiles.countLive();
  }

  async findFederatedUser(sub: string): Promise<FederatedUser | undefined> {
    const entry = this.profiles.get(sub);
    return entry && listed(entry);
  }

  async findFederatedProfile(sub: string): Promise<Readonly<Record<string, unknown>> | undefined> {
    const entry = this.profiles.get(sub);
    return entry && structuredClone(entry.value);
  }

  async saveUpstreamTokens(holder: UpstreamTokenHolder, sealed: string, ttlSeconds: number | 'keep'): Promise<boolean> {
    if ('grantId' in holder && this.isGrantRevoked(holder.grantId)) return false;
    const key = holderKey(holder);
    const expiresAt = ttlSeconds === 'keep' ? this.tokens.get(key)?.expiresAt : this.expiry(ttlSeconds);
    if (expiresAt === undefined) return false;
    this.tokens.set(key, { value: sealed, expiresAt });
    return true;
  }

  async findUpstreamTokens(holder: UpstreamTokenHolder): Promise<string | undefined> {
    if ('grantId' in holder && this.isGrantRevoked(holder.grantId)) {
      this.tokens.delete(holderKey(holder));
      return undefined;
    }
    return this.tokens.get(holderKey(holder))?.value;
  }

  async deleteUpstreamTokens(holder: UpstreamTokenHolder): Promise<void> {
    this.tokens.delete(holderKey(holder));
  }

  maps(): ExpiringMap<Expiring>[] {
    return [this.signIns, this.profiles, this.tokens];
  }

  private expiry(seconds: number): number {
    return this.clock() + seconds * 1000;
  }
}

import { hkdfSync } from 'node:crypto';
import { type Clock, nowSeconds } from '../clock.js';
import type { UpstreamStore, UpstreamTokenHolder } from '../store/upstream-types.js';
import { openUnder, sealUnder } from '../tokens/sealed-response.js';
import type { UpstreamTokens } from './upstream.js';

/**
 * What a sign-in through an upstream provider leaves for later, kept in the store sealed
 * with AES-256-GCM under a key derived from UPSTREAM_TOKEN_SECRET (or SESSION_SECRET, as
 * the DPoP nonce key is), bound to its holder (the holder is the authenticated data, so a
 * value moved to another grant does not open). First the browser session holds it; each
 * grant made in that session then takes its own copy (`bindToGrant`), revoked with the
 * grant (the store deletes it with the revocation mark, and never reads it past one).
 *
 * The session's copy also serves sign-out: the upstream's ID token is the `id_token_hint`
 * of its end-session request. Upstream access and refresh tokens are kept only for a
 * provider with `keep_tokens`; they never leave the server here (token exchange hands
 * them to a resource server).
 */

export interface KeptUpstream {
  readonly provider: string;
  /** With `keep_tokens`: the upstream's tokens. */
  readonly tokens?: UpstreamTokens | undefined;
  /** With `end_session`: the upstream's ID token, for its end-session request. */
  readonly idToken?: string | undefined;
}

/** Seconds before its expiry an upstream access token counts as expired (it must still work where it goes). */
const EXPIRY_MARGIN_SECONDS = 30;

/** Fresh tokens from a refresh token, at the provider that issued them. */
export type UpstreamRefresh = (provider: string, refreshToken: string) => Promise<UpstreamTokens>;

function aadOf(holder: UpstreamTokenHolder): string {
  return 'grantId' in holder ? `grant ${holder.grantId}` : `session ${holder.sessionId}`;
}

export class UpstreamTokenVault {
  private readonly key: Buffer;
  /**
   * Refreshes under way, by grant: a provider that rotates refresh tokens takes each one
   * once, and may revoke its whole grant when it sees one twice, so one process refreshes a
   * grant's tokens one at a time and every caller waits for the same answer.
   */
  private readonly refreshing = new Map<string, Promise<{ provider: string; tokens: UpstreamTokens } | undefined>>();

  constructor(
    private readonly store: UpstreamStore,
    secret: string | Buffer,
    private readonly clock: Clock,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'oauth2-token-service', 'upstream-tokens', 32));
  }

  /** Keeps what the session's sign-in brought, for the session's lifetime. */
  async keepForSession(sessionId: string, kept: KeptUpstream, ttlSeconds: number): Promise<void> {
    await this.save({ sessionId }, kept, ttlSeconds);
  }

  /** What the session's sign-in brought, if anything. */
  forSession(sessionId: string): Promise<KeptUpstream | undefined> {
    return this.read({ sessionId });
  }

  forgetSession(sessionId: string): Promise<void> {
    return this.store.deleteUpstreamTokens({ sessionId });
  }

  /**
   * A new grant of the session takes its own copy of the upstream tokens (none when the
   * session kept none), for as long as the grant can live. Fail closed: the caller issues
   * nothing when this rejects.
   */
  async bindToGrant(sessionId: string, grantId: string, ttlSeconds: number): Promise<void> {
    const kept = await this.read({ sessionId });
    if (kept?.tokens === undefined) return;
    // A new grant is not revoked: the write is acknowledged or the store failed (it rejects).
    await this.save({ grantId }, { provider: kept.provider, tokens: kept.tokens }, ttlSeconds);
  }

  /**
   * The grant's upstream tokens, refreshed at the provider when the access token has
   * expired (and the provider gave a refresh token); undefined when the grant holds none
   * or was revoked. A failed refresh rejects: the tokens are not usable.
   */
  async forGrant(grantId: string, refresh: UpstreamRefresh): Promise<{ provider: string; tokens: UpstreamTokens } | undefined> {
    const kept = await this.read({ grantId });
    if (kept?.tokens === undefined) return undefined;
    const { tokens } = kept;
    const expired = tokens.expiresAt !== undefined && tokens.expiresAt - EXPIRY_MARGIN_SECONDS <= nowSeconds(this.clock);
    if (!expired || tokens.refreshToken === undefined) return { provider: kept.provider, tokens };
    let refreshing = this.refreshing.get(grantId);
    if (!refreshing) {
      refreshing = this.refreshed(grantId, kept.provider, tokens.refreshToken, refresh).finally(() => this.refreshing.delete(grantId));
      this.refreshing.set(grantId, refreshing);
    }
    return refreshing;
  }

  private async refreshed(
    grantId: string,
    provider: string,
    refreshToken: string,
    refresh: UpstreamRefresh,
  ): Promise<{ provider: string; tokens: UpstreamTokens } | undefined> {
    const fresh = await refresh(provider, refreshToken);
    // RFC 6749 §6: the provider "MAY issue a new refresh token"; without one the old one stays.
    const next: UpstreamTokens = { ...fresh, refreshToken: fresh.refreshToken ?? refreshToken };
    // The grant's copy keeps its expiry; revoked meanwhile, nothing is written and nothing returned.
    if (!(await this.save({ grantId }, { provider, tokens: next }, 'keep'))) return undefined;
    return { provider, tokens: next };
  }

  private save(holder: UpstreamTokenHolder, kept: KeptUpstream, ttlSeconds: number | 'keep'): Promise<boolean> {
    return this.store.saveUpstreamTokens(holder, sealUnder(this.key, JSON.stringify(kept), aadOf(holder)), ttlSeconds);
  }

  private async read(holder: UpstreamTokenHolder): Promise<KeptUpstream | undefined> {
    const sealed = await this.store.findUpstreamTokens(holder);
    if (sealed === undefined) return undefined;
    const plaintext = openUnder(this.key, sealed, aadOf(holder));
    // Sealed under another secret (UPSTREAM_TOKEN_SECRET changed) or altered: as good as none.
    return plaintext === undefined ? undefined : (JSON.parse(plaintext) as KeptUpstream);
  }
}

import type { Clock } from '../clock.js';
import type { GrantDetails, GrantIndex } from '../store/types.js';

/** Whose grant it is, as the user's and the client's grant indexes list it, and what for (the account page shows it). */
export interface GrantParties {
  readonly grantId: string;
  readonly sub: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  /** Its resources (RFC 8707), or their identifiers. */
  readonly resources: readonly ({ readonly resource: string } | string)[];
  /**
   * When it was granted (seconds); default: now. A grant recorded twice (the password grant,
   * then its refresh family) names the same time both times: its index entry stays one.
   */
  readonly grantedAt?: number;
}

/**
 * Lists a grant under its user and its client before anything of it is handed out (a code,
 * with the lifetime the grant can reach, so its redemption writes no index; an access token
 * carrying its id; the password grant's family is written together with its entry, see
 * RefreshFamilies), until the latest moment any of it can still be used. Index first:
 * should the grant's own write fail or the process stop in
 * between, the index names a grant that never started (harmless, gone at its expiry),
 * never a live grant the operator cannot find and revoke. A store that does not
 * acknowledge the index rejects, and nothing is issued.
 */
export class GrantIndexing {
  constructor(
    private readonly index: GrantIndex,
    private readonly clock: Clock,
  ) {}

  async recordFor(grant: GrantParties, lifetimeSeconds: number): Promise<void> {
    const now = this.clock();
    const details: GrantDetails = {
      grantedAt: grant.grantedAt ?? Math.floor(now / 1000),
      scope: [...grant.scope],
      resources: grant.resources.map((r) => (typeof r === 'string' ? r : r.resource)),
    };
    await this.index.indexGrant({
      grantId: grant.grantId,
      sub: grant.sub,
      clientId: grant.clientId,
      expiresAt: now + lifetimeSeconds * 1000,
      details,
    });
  }
}

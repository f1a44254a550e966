import type { Clock } from '../clock.js';
import type { GrantIndex } from '../store/types.js';

/** Whose grant it is, as the user's and the client's grant indexes list it. */
export interface GrantParties {
  readonly grantId: string;
  readonly sub: string;
  readonly clientId: string;
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
    await this.index.indexGrant({ ...grant, expiresAt: this.clock() + lifetimeSeconds * 1000 });
  }
}

import { InvalidGrant } from '../errors.js';
import type { RefreshFamilyRecord, RefreshFamilyStore, RefreshLifetimes } from '../store/types.js';
import { mintOpaqueToken } from '../tokens/opaque.js';
import type { GrantIndexing } from './grant-index.js';

/** Starts the refresh-token family of a grant (authorization_code, password). */
export class RefreshFamilies {
  constructor(
    private readonly store: RefreshFamilyStore,
    private readonly lifetimes: RefreshLifetimes,
    private readonly grantIndexing: GrantIndexing,
  ) {}

  /**
   * Records the family and returns its first token. The family keeps the grant's full
   * scope, even when this token request narrowed it.
   */
  async start(grantId: string, family: RefreshFamilyRecord): Promise<string> {
    const token = mintOpaqueToken(grantId);
    // Indexed for the family's whole life before the family exists (see GrantIndexing).
    await this.grantIndexing.recordFor({ grantId, sub: family.sub, clientId: family.clientId }, this.lifetimes.absoluteSeconds);
    const created = await this.store.createRefreshFamily(grantId, family, token.ref, this.lifetimes);
    // Only a replayed authorization code revokes a grant before its family exists: issue nothing.
    if (!created) throw new InvalidGrant('the authorization code was already used; the tokens issued from it are revoked');
    return token.value;
  }
}

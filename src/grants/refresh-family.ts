import type { Client } from '../clients/registry.js';
import type { DpopBinding } from '../dpop/token-endpoint.js';
import { InvalidGrant } from '../errors.js';
import type { RefreshFamilyRecord, RefreshFamilyStore, RefreshLifetimes } from '../store/types.js';
import { mintOpaqueToken } from '../tokens/opaque.js';
import type { GrantIndexing } from './grant-index.js';

/**
 * RFC 9449 §5: "Refresh tokens issued to confidential clients are not bound to the DPoP
 * proof public key because they are already sender-constrained with a different existing
 * mechanism", while for public clients "the refresh token MUST be bound to the respective
 * public key": the family of a public client that sent a proof keeps its thumbprint.
 */
export function familyKeyBinding(client: Client, dpop: DpopBinding | undefined): { readonly jkt?: string } {
  return client.authMethod === 'none' && dpop !== undefined ? { jkt: dpop.jkt } : {};
}

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
    // The index entry (for the family's whole life) and the family are written together, not
    // one after the other: a round trip before the family would widen the window in which a
    // concurrent replay of the code revokes the grant first. Safe all the same: the token is
    // handed out only once both are acknowledged, so a family whose index write failed never
    // had a token delivered (and the code's own entry still covers its access token).
    const [, created] = await Promise.all([
      this.grantIndexing.recordFor({ grantId, sub: family.sub, clientId: family.clientId }, this.lifetimes.absoluteSeconds),
      this.store.createRefreshFamily(grantId, family, token.ref, this.lifetimes),
    ]);
    // Only a replayed authorization code revokes a grant before its family exists: issue nothing.
    if (!created) throw new InvalidGrant('the authorization code was already used; the tokens issued from it are revoked');
    return token.value;
  }
}

import { InvalidGrant } from '../errors.js';
import type { RefreshFamilyRecord } from '../store/types.js';
import { mintOpaqueToken } from '../tokens/opaque.js';
import type { GrantServices } from './types.js';

/**
 * Starts the refresh-token family of a grant and returns its first token. The family
 * keeps the grant's full scope, even when this token request narrowed it.
 */
export async function startRefreshFamily(grantId: string, family: RefreshFamilyRecord, services: GrantServices): Promise<string> {
  const token = mintOpaqueToken(grantId);
  const created = await services.store.createRefreshFamily(grantId, family, token.ref, services.settings.refreshLifetimes);
  // Only a replayed authorization code revokes a grant before its family exists: issue nothing.
  if (!created) throw new InvalidGrant('the authorization code was already used; the tokens issued from it are revoked');
  return token.value;
}

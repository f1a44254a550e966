import { z } from 'zod';
import type { GrantOwner, IndexedGrant } from '../store/types.js';
import { type AdminClient, AdminApiError } from './admin-client.js';

/** `grants list --url`: a user's or a client's live grants through `GET /admin/v1/grants`, as the store lists them. */

const RemoteGrant = z.object({ grant_id: z.string(), sub: z.string(), client_id: z.string(), expires_at: z.number() }).loose();

export async function remoteGrants(api: AdminClient, owner: GrantOwner): Promise<IndexedGrant[]> {
  const query = 'sub' in owner ? { sub: owner.sub } : { client_id: owner.clientId };
  return (await api.listAll('/grants', query)).map((item) => {
    const parsed = RemoteGrant.safeParse(item);
    if (!parsed.success)
      throw new AdminApiError(`the admin API at ${api.server} answered a grant that is not {grant_id, sub, client_id, expires_at}`);
    const grant = parsed.data;
    return { grantId: grant.grant_id, sub: grant.sub, clientId: grant.client_id, expiresAt: grant.expires_at * 1000 };
  });
}

import { z } from 'zod';
import { type AdminGrantsDependencies, listGrants, revokeGrant } from '../../admin/grants.js';
import { pageQuery, pageSchema } from '../../admin/paging.js';
import { adminRoute, type AdminRoute } from '../../admin/routes.js';

/** `GET /admin/v1/grants` and `DELETE /admin/v1/grants/{grant_id}`: what `grants list` and `grants revoke <id>` do. */

const GrantSchema = z
  .object({
    grant_id: z.string(),
    sub: z.string(),
    client_id: z.string(),
    expires_at: z.number().int().describe('When nothing of the grant is usable any more, in seconds since the epoch'),
    scope: z.array(z.string()).optional().describe('The scope granted'),
    resources: z.array(z.string()).optional().describe('The resources (RFC 8707) it is for; empty: ACCESS_TOKEN_AUDIENCE'),
    granted_at: z.number().int().optional().describe('When it was granted, in seconds since the epoch'),
  })
  .strict();

export function grantRoutes(deps: AdminGrantsDependencies): AdminRoute[] {
  return [
    adminRoute({
      method: 'GET',
      path: '/grants',
      operationId: 'listGrants',
      summary: "A user's or a client's live grants, soonest expiry first",
      description: 'Give sub, client_id, or both (the grants of that user at that client). Revoked and expired grants are not listed.',
      tag: 'grants',
      query: z.object({
        sub: z.string().min(1).max(255).optional().describe('The user'),
        client_id: z.string().min(1).max(2048).optional().describe('The client'),
        ...pageQuery,
      }),
      responses: { 200: { description: 'A page of grants', schema: pageSchema(GrantSchema) } },
      handle: async ({ query }) => ({
        status: 200,
        body: await listGrants({ sub: query.sub, clientId: query.client_id }, query, deps),
      }),
    }),
    adminRoute({
      method: 'DELETE',
      path: '/grants/{grant_id}',
      operationId: 'revokeGrant',
      summary: 'Revoke a grant: its refresh tokens stop at once, introspection reports its access tokens inactive',
      tag: 'grants',
      params: z.object({ grant_id: z.string().describe("The grant's id: the grant_id claim of its access tokens") }),
      responses: { 204: { description: 'Revoked' } },
      handle: async ({ params, actor }) => {
        await revokeGrant(params.grant_id, actor, deps);
        return { status: 204 };
      },
    }),
  ];
}

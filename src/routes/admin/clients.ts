import { z } from 'zod';
import type { ClientsApi } from '../../admin/clients-api.js';
import { CLIENT_SOURCES, ClientMetadataSchema, ClientViewSchema, IssuedClientSchema } from '../../admin/client-metadata.js';
import { MERGE_PATCH_MEDIA_TYPE } from '../../admin/merge-patch.js';
import { pageQuery, pageSchema } from '../../admin/paging.js';
import { adminRoute, type AdminRoute } from '../../admin/routes.js';
import { MergePatchSchema, withEtag } from './entity.js';

/**
 * `/admin/v1/clients`: clients as RFC 7591 client metadata. CLIENTS_FILE's are listed and
 * read-only (409 naming the file); dynamically registered ones are listed and can be deleted
 * (cleanup). The secret is generated here and shown once: in the answer that created it.
 */

const clientId = z.object({ client_id: z.string().min(1).max(2048).describe('The client id') });

export function clientRoutes(api: ClientsApi, adminUrl: string): AdminRoute[] {
  const location = (id: string) => `${adminUrl}/clients/${encodeURIComponent(id)}`;
  return [
    adminRoute({
      method: 'GET',
      path: '/clients',
      operationId: 'listClients',
      summary: "Clients: CLIENTS_FILE's (file order), the API's (creation order), then dynamically registered ones (by id)",
      tag: 'clients',
      query: z.object({
        source: z.enum(CLIENT_SOURCES).optional().describe('Only the clients from here'),
        grant_type: z.string().min(1).max(200).optional().describe('Only the clients with this grant type'),
        q: z.string().min(1).max(200).optional().describe('Only the clients whose id or name contains this (any case)'),
        ...pageQuery,
      }),
      responses: { 200: { description: 'A page of clients', schema: pageSchema(ClientViewSchema) } },
      handle: async ({ query }) => ({ status: 200, body: await api.list(query) }),
    }),
    adminRoute({
      method: 'POST',
      path: '/clients',
      operationId: 'createClient',
      summary: 'Create a client; one that authenticates with a secret gets a generated one, in this answer only',
      tag: 'clients',
      body: ClientMetadataSchema,
      problems: ['conflict-file-entry', 'conflict-exists'],
      responses: { 201: { description: 'Created', schema: IssuedClientSchema, headers: ['ETag', 'Location'] } },
      handle: async ({ body, audit }) => {
        const created = await api.create(body);
        audit({ entity: 'client', id: created.view.client_id, action: 'created', fields: created.fields });
        return { ...withEtag(201, created), location: location(created.view.client_id) };
      },
    }),
    adminRoute({
      method: 'GET',
      path: '/clients/{client_id}',
      operationId: 'getClient',
      summary: 'One client (never its secret)',
      tag: 'clients',
      params: clientId,
      responses: { 200: { description: 'The client', schema: ClientViewSchema, headers: ['ETag'] } },
      handle: async ({ params }) => withEtag(200, await api.get(params.client_id)),
    }),
    adminRoute({
      method: 'PUT',
      path: '/clients/{client_id}',
      operationId: 'replaceClient',
      summary: 'Replace a client’s metadata as a whole; its secret stays (one is generated when it starts needing one)',
      tag: 'clients',
      params: clientId,
      body: ClientMetadataSchema,
      conditional: true,
      problems: ['conflict-file-entry', 'conflict-registration'],
      responses: { 200: { description: 'The client as replaced', schema: IssuedClientSchema, headers: ['ETag'] } },
      handle: async ({ params, body, ifMatch, audit }) => {
        const replaced = await api.replace(params.client_id, body, ifMatch);
        audit({ entity: 'client', id: params.client_id, action: 'replaced', fields: replaced.fields });
        return withEtag(200, replaced);
      },
    }),
    adminRoute({
      method: 'PATCH',
      path: '/clients/{client_id}',
      operationId: 'patchClient',
      summary: 'Change a client (JSON Merge Patch, RFC 7396); {"disabled": true} refuses it everywhere and revokes its grants',
      tag: 'clients',
      params: clientId,
      body: MergePatchSchema,
      bodyMediaTypes: [MERGE_PATCH_MEDIA_TYPE],
      conditional: true,
      problems: ['conflict-file-entry', 'conflict-registration'],
      responses: { 200: { description: 'The client as changed', schema: IssuedClientSchema, headers: ['ETag'] } },
      handle: async ({ params, body, ifMatch, audit }) => {
        const patched = await api.patch(params.client_id, body, ifMatch);
        audit({ entity: 'client', id: params.client_id, action: patched.action, fields: patched.fields });
        return withEtag(200, patched);
      },
    }),
    adminRoute({
      method: 'DELETE',
      path: '/clients/{client_id}',
      operationId: 'deleteClient',
      summary: 'Delete a client of the API or a dynamically registered one: refused everywhere within a second, its grants revoked',
      tag: 'clients',
      params: clientId,
      conditional: true,
      problems: ['conflict-file-entry'],
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, ifMatch, audit }) => {
        await api.delete(params.client_id, ifMatch);
        audit({ entity: 'client', id: params.client_id, action: 'deleted' });
        return { status: 204 };
      },
    }),
    adminRoute({
      method: 'POST',
      path: '/clients/{client_id}/secret',
      operationId: 'rotateClientSecret',
      summary: 'A new client secret, in this answer only; the previous one stops working at once',
      tag: 'clients',
      params: clientId,
      conditional: true,
      problems: ['conflict-file-entry', 'conflict-registration'],
      responses: { 200: { description: 'The client with its new secret', schema: IssuedClientSchema, headers: ['ETag'] } },
      handle: async ({ params, ifMatch, audit }) => {
        const rotated = await api.rotateSecret(params.client_id, ifMatch);
        audit({ entity: 'client', id: params.client_id, action: 'secret_rotated', fields: rotated.fields });
        return withEtag(200, rotated);
      },
    }),
  ];
}

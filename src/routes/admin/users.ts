import { z } from 'zod';
import { MERGE_PATCH_MEDIA_TYPE } from '../../admin/merge-patch.js';
import { pageQuery, pageSchema } from '../../admin/paging.js';
import { adminRoute, type AdminRoute } from '../../admin/routes.js';
import { NewUserSchema, PasswordSchema, USER_SOURCES, type UsersApi, UserViewSchema } from '../../admin/users-api.js';
import type { AdminActor } from '../../admin/audit.js';
import { MergePatchSchema, withEtag } from './entity.js';

/**
 * `/admin/v1/users`: local users (USERS_FILE's read-only here, the API's) and federated users
 * who signed in through a provider (read-only but for `disabled`), addressed by `sub`. A
 * password is write-only; no answer carries its hash. `"disabled": true` refuses sign-in
 * and refresh, ends their sessions and revokes their grants, on every instance within a second.
 * Nobody disables, demotes (the role admin) or deletes themselves (`conflict-self`).
 */

/** The user a request acts as: a token's user, not a client acting for itself. */
const actingUser = (actor: AdminActor): string | undefined => ('sub' in actor ? actor.sub : undefined);

const sub = z.object({ sub: z.string().min(1).max(255).describe("The user's sub") });

export function userRoutes(api: UsersApi, adminUrl: string): AdminRoute[] {
  return [
    adminRoute({
      method: 'GET',
      path: '/users',
      operationId: 'listUsers',
      summary: "Users: USERS_FILE's (file order), the API's (creation order), then federated users who signed in (by sub)",
      tag: 'users',
      query: z.object({
        source: z.enum(USER_SOURCES).optional().describe('Only the users from here'),
        q: z.string().min(1).max(200).optional().describe('Only the users whose sub, username, email or name contains this (any case)'),
        ...pageQuery,
      }),
      responses: { 200: { description: 'A page of users', schema: pageSchema(UserViewSchema) } },
      handle: async ({ query }) => ({ status: 200, body: await api.list(query) }),
    }),
    adminRoute({
      method: 'POST',
      path: '/users',
      operationId: 'createUser',
      summary: 'Create a local user with a password (at least 8 characters, kept as its scrypt hash)',
      tag: 'users',
      body: NewUserSchema,
      problems: ['conflict-file-entry', 'conflict-exists'],
      responses: { 201: { description: 'Created', schema: UserViewSchema, headers: ['ETag', 'Location'] } },
      handle: async ({ body, audit }) => {
        const created = await api.create(body);
        audit({ entity: 'user', id: created.view.sub, action: 'created', fields: created.fields });
        return { ...withEtag(201, created), location: `${adminUrl}/users/${encodeURIComponent(created.view.sub)}` };
      },
    }),
    adminRoute({
      method: 'GET',
      path: '/users/{sub}',
      operationId: 'getUser',
      summary: 'One user (never a password or its hash)',
      tag: 'users',
      params: sub,
      responses: { 200: { description: 'The user', schema: UserViewSchema, headers: ['ETag'] } },
      handle: async ({ params }) => withEtag(200, await api.get(params.sub)),
    }),
    adminRoute({
      method: 'PATCH',
      path: '/users/{sub}',
      operationId: 'patchUser',
      summary: 'Change a user (JSON Merge Patch, RFC 7396); a federated user: disabled only',
      tag: 'users',
      params: sub,
      body: MergePatchSchema,
      bodyMediaTypes: [MERGE_PATCH_MEDIA_TYPE],
      conditional: true,
      problems: ['conflict-file-entry', 'conflict-exists', 'conflict-federated', 'conflict-self'],
      responses: { 200: { description: 'The user as changed', schema: UserViewSchema, headers: ['ETag'] } },
      handle: async ({ params, body, ifMatch, actor, audit }) => {
        const patched = await api.patch(params.sub, body, ifMatch, actingUser(actor));
        audit({ entity: 'user', id: params.sub, action: patched.action, fields: patched.fields });
        return withEtag(200, patched);
      },
    }),
    adminRoute({
      method: 'DELETE',
      path: '/users/{sub}',
      operationId: 'deleteUser',
      summary: 'Delete a local user of the API: their sessions end and their grants are revoked',
      tag: 'users',
      params: sub,
      conditional: true,
      problems: ['conflict-file-entry', 'conflict-federated', 'conflict-self'],
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, ifMatch, actor, audit }) => {
        await api.delete(params.sub, ifMatch, actingUser(actor));
        audit({ entity: 'user', id: params.sub, action: 'deleted' });
        return { status: 204 };
      },
    }),
    adminRoute({
      method: 'PUT',
      path: '/users/{sub}/password',
      operationId: 'setUserPassword',
      summary: "Set a local user's password (write-only: at least 8 characters, kept as its scrypt hash)",
      tag: 'users',
      params: sub,
      body: PasswordSchema,
      conditional: true,
      problems: ['conflict-file-entry', 'conflict-federated'],
      responses: { 204: { description: 'Set; the answer carries the user’s new ETag', headers: ['ETag'] } },
      handle: async ({ params, body, ifMatch, audit }) => {
        const etag = await api.setPassword(params.sub, body.password, ifMatch);
        audit({ entity: 'user', id: params.sub, action: 'password_set', fields: ['password'] });
        return { status: 204, etag };
      },
    }),
  ];
}

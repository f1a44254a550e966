import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { validationProblem } from '../../admin/problems.js';
import { type AccountDependencies, type ConnectedApp, connectedApps, revokeConnectedApp } from '../../console/account.js';
import type { SecurityEvents } from '../../events/types.js';
import { isIdentityScope } from '../../oauth/identity-scopes.js';
import { type AccountPerson, accountPage, type AppView, signedOutEverywherePage } from '../../pages/account.js';
import { sendPage } from '../../pages/html.js';
import type { Messages } from '../../pages/messages/index.js';
import type { ProtectedResource } from '../../resources/registry.js';
import { describeScope } from '../../resources/scope-descriptions.js';
import type { AuthenticatedUser } from '../../session/browser-session.js';
import { cookieJar } from '../authorize/browser.js';
import { checkChange, type ConsoleFrameDependencies, formFields, seeOther, viewOf } from './serve.js';

/**
 * `/account`, the page of every person who signs in here: who they are and how they signed
 * in, the apps they connected (a Revoke button each), and "sign out everywhere". It reads the
 * server's own browser session (the cookie of the login page); without one it signs in
 * through the authorization endpoint as the console does, with `scope=openid` alone, and
 * comes back here. Changes are POSTs with the CSRF token, from this origin only.
 */

export interface AccountRouteOptions {
  readonly path: string;
  readonly apps: AccountDependencies;
  /** The resources, for the scopes' words (as on the consent page) and the resources' names. */
  readonly resources: { all(): readonly ProtectedResource[]; get(resource: string): ProtectedResource | undefined };
  /** The person's standard claims: a local user's from USERS_FILE, a federated user's as their provider gave them. */
  readonly claimsOf: (sub: string) => Promise<Readonly<Record<string, unknown>> | undefined>;
  /** An upstream provider's name, by id. */
  readonly providerName: (id: string) => string | undefined;
  /** Ends every browser session of `sub` (the subject mark `sessions_revoked_at`). */
  readonly revokeSessions: (sub: string) => Promise<void>;
  readonly events: SecurityEvents;
}

const PAGE_SIZE = 20;
const AccountQuery = z.object({
  cursor: z.string().max(1024).optional(),
  notice: z.enum(['revoked', 'gone']).optional(),
  client_id: z.string().max(2048).optional(),
});

function appView(app: ConnectedApp, t: Messages, resources: AccountRouteOptions['resources']): AppView {
  const describing = [...app.resources.flatMap((r) => resources.get(r) ?? []), ...resources.all()];
  return {
    grantId: app.grantId,
    name: app.clientName ?? app.clientId,
    uri: app.clientUri,
    scope: app.scope.map((scope) => ({
      scope,
      description: isIdentityScope(scope) ? t.identityScopes[scope] : describeScope(scope, t.lang, describing),
    })),
    resources: app.resources.map((resource) => ({ resource, name: resources.get(resource)?.name })),
    grantedAt: app.grantedAt,
    lastUsedAt: app.lastUsedAt,
  };
}

async function personOf(user: AuthenticatedUser, options: AccountRouteOptions, displayName: string): Promise<AccountPerson> {
  const claims = (await options.claimsOf(user.sub)) ?? {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return {
    displayName,
    sub: user.sub,
    name: text(claims.name),
    email: text(claims.email),
    emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : undefined,
    signedIn: {
      provider: user.provider === undefined ? undefined : (options.providerName(user.provider) ?? user.provider),
      at: user.authTime,
    },
  };
}

export async function accountRoutes(app: FastifyInstance, deps: ConsoleFrameDependencies, options: AccountRouteOptions): Promise<void> {
  const { path } = options;
  const currentUser = (request: FastifyRequest, reply: Parameters<typeof cookieJar>[1]) => deps.browser.current(cookieJar(request, reply));

  app.get(path, async (request, reply) => {
    const user = currentUser(request, reply);
    if (!user) return seeOther(reply, deps.signIn.begin(cookieJar(request, reply), 'account', path));
    const parsed = AccountQuery.safeParse(request.query ?? {});
    if (!parsed.success) throw validationProblem(parsed.error.issues, 'the query has invalid parameters');
    const query = parsed.data;
    const view = viewOf(deps, request);
    const apps = await connectedApps(user.sub, { limit: PAGE_SIZE, cursor: query.cursor }, options.apps);
    const revoked =
      query.notice === 'revoked' && query.client_id !== undefined ? await options.apps.clients.find(query.client_id) : undefined;
    const notice =
      query.notice === 'gone'
        ? view.t.account.revokeGone
        : query.notice === 'revoked' && query.client_id !== undefined
          ? view.t.account.revoked(revoked?.clientName ?? query.client_id)
          : undefined;
    return sendPage(
      reply,
      200,
      accountPage(view, {
        person: await personOf(user, options, await deps.displayNameOf(user.sub)),
        apps: { ...apps, items: apps.items.map((item) => appView(item, view.t, options.resources)) },
        csrfToken: deps.browser.csrfToken(cookieJar(request, reply)),
        paths: { self: path, revoke: `${path}/apps/revoke`, everywhere: `${path}/sign-out-everywhere` },
        notice,
      }),
    );
  });

  app.post(`${path}/apps/revoke`, async (request, reply) => {
    const { csrf_token: token, grant_id: grantId } = formFields(Array.isArray(request.body) ? (request.body as [string, string][]) : []);
    checkChange(request, reply, deps, token);
    const user = currentUser(request, reply);
    if (!user || typeof grantId !== 'string') return seeOther(reply, path);
    const grant = await revokeConnectedApp(user.sub, grantId, options.apps);
    const query = grant ? new URLSearchParams({ notice: 'revoked', client_id: grant.clientId }) : new URLSearchParams({ notice: 'gone' });
    return seeOther(reply, `${path}?${query.toString()}`);
  });

  app.post(`${path}/sign-out-everywhere`, async (request, reply) => {
    const { csrf_token: token } = formFields(Array.isArray(request.body) ? (request.body as [string, string][]) : []);
    checkChange(request, reply, deps, token);
    const jar = cookieJar(request, reply);
    const user = deps.browser.current(jar);
    if (user) {
      await options.revokeSessions(user.sub);
      options.events.emit({ event: 'sessions.revoked', sub: user.sub, actor: { sub: user.sub } });
    }
    deps.browser.end(jar);
    return sendPage(reply, 200, signedOutEverywherePage(viewOf(deps, request), path));
  });
}

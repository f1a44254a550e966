import type { FastifyInstance } from 'fastify';
import { protectedResource } from '@oauth2-token-service/verifier/fastify';
import type { ServerDependencies } from './app.js';
import type { Config } from './config/index.js';
import { ADMIN_SCOPES } from './oauth/admin-scopes.js';
import type { Pages } from './pages/view.js';
import { adminEntityRoutes } from './routes/admin/entities.js';
import { adminApi } from './routes/admin/index.js';
import { consoleRoutes } from './routes/console/index.js';
import { consolePages } from './routes/console/pages.js';
import { identityPages } from './routes/console/identity.js';
import { DiscoveryChecks } from './console/discovery.js';
import type { Services } from './services/index.js';

/** What administrators reach, registered by buildServer: the admin API and the console (with the account page every user reaches). */

/**
 * The admin API at `{ISSUER}/admin/v1`, its routes from each entity plugin, and its RFC 9728
 * metadata at `/.well-known/oauth-protected-resource{path}/admin/v1`.
 */
export async function registerAdminApi(app: FastifyInstance, config: Config, deps: ServerDependencies, services: Services): Promise<void> {
  const { admin, endpoints, clock, events } = services;
  await app.register(protectedResource, {
    verifier: admin.verifier,
    scopesSupported: ADMIN_SCOPES,
    resourceName: 'Admin API',
    resourceDocumentation: `${endpoints.url('admin')}/openapi.json`,
  });
  await app.register(adminApi, {
    prefix: endpoints.path('admin'),
    routes: adminEntityRoutes({
      api: services.entries.admin.api,
      grants: admin.grants,
      keystore: deps.keystore,
      clock,
      adminUrl: endpoints.url('admin'),
    }),
    callers: admin.callers,
    events,
    origin: new URL(config.issuer).origin,
    openApi: admin.openApi,
  });
}

/**
 * The console at `{ISSUER}/admin` (a built-in client of this server, its pages calling the
 * admin API's services as the signed-in person) and the account page at `{ISSUER}/account`.
 */
export async function registerConsole(
  app: FastifyInstance,
  config: Config,
  deps: ServerDependencies,
  services: Services,
  pages: Pages,
): Promise<void> {
  const { admin, endpoints, clock, events, entries, authorizePipeline: pipeline } = services;
  const grants = admin.grants;
  const overview = {
    clients: deps.clients,
    users: deps.users,
    providers: deps.providers,
    grantIndex: deps.store.grantIndex,
    registrations: deps.store.clientRegistrations,
    federatedUsers: deps.store.upstream,
  };
  await app.register(consoleRoutes, {
    base: endpoints.path('console'),
    accountPath: endpoints.path('account'),
    origin: new URL(config.issuer).origin,
    pages,
    browser: pipeline.session,
    signIn: services.console.signIn,
    displayNameOf: pipeline.displayNameOf,
    tokenPath: endpoints.path('token'),
    sessionsWith: (endpoint) =>
      services.console.sessionsWith(endpoint, { idTokens: services.idTokens, callers: admin.callers, subjects: entries.subjects, grants }),
    routes: [
      ...consolePages({
        overview,
        activity: services.console.activity,
        grants,
        keystore: deps.keystore,
        clock,
        entries: { api: entries.admin.api, events, files: entries.admin.files },
      }),
      // users, identity providers, workload trusts
      ...identityPages({
        api: entries.admin.api,
        events,
        files: entries.admin.files,
        providerName: (id) => deps.providers?.get(id)?.name,
        redirectUriOf: (id) => endpoints.upstreamCallbackUrl(id),
        discovery: new DiscoveryChecks(
          { allowInsecure: config.identityProviders.allowInsecure, ca: deps.outboundFetch?.ca, resolve: deps.outboundFetch?.resolve },
          clock,
        ),
      }),
    ],
    grants,
    account: {
      path: endpoints.path('account'),
      apps: services.console.account(services.directory, grants, events),
      resources: services.resources,
      claimsOf: services.userinfo.claims.claimsOf,
      providerName: (id) => deps.providers?.get(id)?.name,
      revokeSessions: (sub) => entries.admin.users.revokeSessions(sub),
      events,
    },
  });
}

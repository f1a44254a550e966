import { randomBytes } from 'node:crypto';
import { clientDirectory, registrySource } from '../clients/directory.js';
import { InitialAccessTokens } from '../clients/initial-access-tokens.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { DpopNonces } from '../dpop/nonce.js';
import { TokenEndpointProofs } from '../dpop/token-endpoint.js';
import { endpointsOf } from '../endpoints.js';
import { clientAuthentication, dynamicRegistrations, metadataDocumentSource, selfAssertedClientPolicy } from './clients.js';
import type { AuditSink } from '../events/audit-log.js';
import { serverEvents } from './events.js';
import { deviceServices } from './device.js';
import { GrantIndexing } from '../grants/grant-index.js';
import { type GrantTable, grantTable } from '../grants/index.js';
import { adminApiResource, withBuiltInResources } from '../resources/built-in.js';
import { ResourceRegistry } from '../resources/registry.js';
import { BrowserSession } from '../session/browser-session.js';
import { browserCookiesFor } from '../session/cookies.js';
import { AccessTokens } from '../tokens/access-token.js';
import { IdTokens } from '../oidc/id-token.js';
import type { UserinfoDependencies } from '../oidc/userinfo.js';
import { ResourceProofs } from '../dpop/resource-proofs.js';
import type { AuthorizeDependencies } from '../authorize/pipeline.js';
import { RefreshTokenSealing } from '../tokens/refresh-token-sealer.js';
import { PasswordSignIn } from '../users/sign-in.js';
import { SignInThrottle } from '../users/sign-in-throttle.js';
import { VerificationSlots } from '../users/verification-slots.js';
import { upstreamServices } from './upstream.js';
import { adminServices } from './admin.js';
import { WorkloadTrustRegistry } from '../workloads/trusts.js';
import { workloadServices } from './workloads.js';
import { entriesServices } from './entries.js';
import { consoleClientSource } from '../console/client.js';
import { consoleServices } from './console.js';

/**
 * The service wiring: from the configuration and what the process opened (keys, registries,
 * store), the domain services the routes use. No Fastify here; app.ts hands them to the routes.
 */

import type { ServiceDependencies } from './dependencies.js';

export type { ServiceDependencies } from './dependencies.js';

export { serverEvents } from './events.js';

/** The log the services write to (the app's). */
export type ServiceLog = AuditSink & {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
};

export type Services = ReturnType<typeof buildServices>;

export function buildServices(config: Config, deps: ServiceDependencies, log: ServiceLog) {
  const { keystore, clients, store } = deps;
  const clock = deps.clock ?? systemClock;
  const endpoints = endpointsOf(config.issuer);
  // RESOURCES_FILE's resources, and the admin API every server has.
  const registeredResources = deps.resources ?? ResourceRegistry.fromEntries([]);
  const resources = withBuiltInResources(registeredResources, [adminApiResource(endpoints.url('admin'))]);
  const consoleParts = consoleServices(config, deps, { endpoints, clock });
  const events = serverEvents(log, deps.metrics, [consoleParts.activity]);
  // Workload trusts come from WORKLOAD_TRUSTS_FILE and the admin API: a registry even without the file.
  const workloads = deps.workloads ?? WorkloadTrustRegistry.empty();
  const entries = entriesServices(config, deps, { log, clock, resources: registeredResources, workloads });
  const { subjects } = entries;
  const accessTokens = new AccessTokens(
    keystore,
    {
      issuer: config.issuer,
      audience: config.accessTokenAudience,
      ttlSeconds: config.accessTokenTtl,
      signingThread: config.accessTokenSigning,
    },
    clock,
  );
  const idTokens = new IdTokens(
    keystore,
    { issuer: config.issuer, ttlSeconds: config.idTokenTtl, signingThread: config.accessTokenSigning },
    clock,
  );
  // One sign-in service, so the login page and the password grant share limits and verification slots.
  const signIn = new PasswordSignIn(
    deps.users,
    new SignInThrottle(store.attempts, {
      maxPerUsername: config.loginMaxFailures,
      maxPerAddress: config.loginMaxFailuresPerIp,
      windowSeconds: config.loginFailureWindow,
      ipv6LimitPrefix: config.ipv6LimitPrefix,
    }),
    new VerificationSlots(config.passwordVerifyConcurrency, config.passwordVerifyQueue),
    events,
    subjects,
  );
  const grantIndexing = new GrantIndexing(store.grantIndex, clock);
  const upstream = upstreamServices(config, deps, { endpoints, clock, longestAccessTokenSeconds: accessTokens.longestLifetimeSeconds });
  const refreshTokenSealing = new RefreshTokenSealing(store, clock);
  const { devices, verification } = deviceServices(config, store, resources, events);
  const grants: GrantTable = grantTable({
    store,
    accessTokens,
    idTokens,
    resources,
    users: deps.users,
    signIn,
    clock,
    grantIndexing,
    refreshLifetimes: { absoluteSeconds: config.refreshTokenTtl, idleSeconds: config.refreshTokenIdleTtl },
    refreshReuseGraceSeconds: config.refreshReuseGrace,
    refreshTokenSealing,
    events,
    devices,
    upstreamTokens: upstream?.tokens,
    idJag: upstream?.idJag,
    subjects,
  });
  const selfAsserted = selfAssertedClientPolicy(config, resources);
  const registrations = dynamicRegistrations(config, endpoints, { store, clients, policy: selfAsserted, clock, events });
  // The console first (its id is reserved), then the clients file, so no other source can shadow one of its ids.
  const directory = clientDirectory(
    consoleClientSource(consoleParts.client),
    registrySource(clients),
    ...(registrations ? [registrations] : []),
    ...metadataDocumentSource(config, deps, log, clock, selfAsserted),
  );
  const proofs = new TokenEndpointProofs(
    store,
    // Derived from SESSION_SECRET, so instances behind one load balancer accept each other's nonces.
    new DpopNonces(config.sessionSecret ?? randomBytes(32), config.dpop.proofWindowSeconds),
    {
      tokenEndpoint: endpoints.url('token'),
      algorithms: config.dpop.algorithms,
      windowSeconds: config.dpop.proofWindowSeconds,
      requireNonce: config.dpop.requireNonce,
      onRefused: (reason) => events.emit({ event: 'dpop.proof_failed', reason }),
    },
    clock,
  );
  const session = new BrowserSession(
    deps.signer,
    { cookies: browserCookiesFor(config.issuer, endpoints.browserCookiePath), ttlSeconds: config.sessionTtl },
    clock,
    subjects,
  );
  const authorizePipeline: AuthorizeDependencies = {
    registries: { clients: directory, resources },
    codeResponseMode: config.codeResponseMode,
    session,
    signer: deps.signer,
    clock,
    passwordSignIn: signIn,
    consent: { consents: store.consents, consentTtlSeconds: config.consentTtl, defaultAudience: config.accessTokenAudience },
    idTokens,
    users: deps.users,
    upstream: upstream?.signIn,
    displayNameOf: async (sub) => (await upstream?.profiles.displayNameOf(sub)) ?? sub,
    device: verification,
    subjects,
    responses: {
      codes: store,
      accessTokens,
      authorizationCodeTtl: config.authorizationCodeTtl,
      refreshTokenTtl: config.refreshTokenTtl,
      grantIndexing,
      events,
      upstreamTokens: upstream?.vault,
    },
  };
  const userinfo: UserinfoDependencies = {
    accessTokens,
    denylist: store,
    grants: store,
    // Tokens issued without `resource` are ours: their audience is ACCESS_TOKEN_AUDIENCE (the issuer unless set).
    audiences: [...new Set([config.issuer, config.accessTokenAudience])],
    // A federated user's claims are what their provider said at their last sign-in.
    claims: { claimsOf: async (sub) => deps.users.bySub(sub)?.claims ?? (await upstream?.profiles.claimsOf(sub)) },
    subjects,
  };
  const resourceProofs = new ResourceProofs(
    store,
    { algorithms: config.dpop.algorithms, windowSeconds: config.dpop.proofWindowSeconds },
    clock,
  );
  return {
    clock,
    endpoints,
    userinfo,
    resourceProofs,
    events,
    resources,
    accessTokens,
    idTokens,
    signIn,
    grantIndexing,
    grants,
    /** The workload trusts served (WORKLOAD_TRUSTS_FILE's and the store's), and their JWT bearer grant, without a client. */
    workloads,
    workloadGrant: workloadServices(config, { ...deps, workloads }, { endpoints, clock, accessTokens, resources, events }),
    /** Device authorizations (RFC 8628): started at their endpoint, decided at /device, polled at the token endpoint. */
    devices,
    /** What revocation and introspection read of a token's state. */
    tokenStatus: { accessTokens, refreshTokens: store, refreshTokenSealing, denylist: store, grants: store, clock },
    selfAsserted,
    registrations,
    initialAccessTokens:
      config.dynamicClientRegistration === 'token' ? new InitialAccessTokens(config.registrationInitialAccessTokens) : undefined,
    directory,
    /** What the token, revocation and introspection endpoints authenticate clients with. */
    authentication: clientAuthentication(config, deps, { log, clock, endpoints, directory, events }),
    proofs,
    authorizePipeline,
    /** The upstream identity providers and the tokens kept from them; undefined without IDENTITY_PROVIDERS_FILE. */
    upstream,
    /** The admin API: who may call it, the grants routes' services, its OpenAPI settings. */
    admin: adminServices(config, deps, { endpoints, clock, events, accessTokens }),
    /** The admin API's entries: the sync, the subject marks, the admin services (src/admin/). */
    entries,
    /** The console at /admin and the account page (src/console/). */
    console: consoleParts,
  };
}

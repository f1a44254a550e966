import { randomBytes, randomUUID } from 'node:crypto';
import { clientDirectory, type ClientSource, registrySource } from './clients/directory.js';
import { InitialAccessTokens } from './clients/initial-access-tokens.js';
import { metadataDocumentGrants } from './clients/metadata-document.js';
import { MetadataDocumentClients } from './clients/metadata-documents.js';
import { ClientRegistrations } from './clients/registrations.js';
import type { ClientMetadataPolicy } from './clients/registration-metadata.js';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { ClientRegistry } from './clients/registry.js';
import { type Clock, systemClock } from './clock.js';
import type { TrustProxy } from './config/client-address.js';
import type { Config } from './config/index.js';
import { DpopNonces } from './dpop/nonce.js';
import { TokenEndpointProofs } from './dpop/token-endpoint.js';
import { auditLog, type AuditSink } from './events/audit-log.js';
import { fanOut, type SecurityEvents } from './events/types.js';
import type { Resolver } from './fetch/safe-fetch.js';
import { GrantIndexing } from './grants/grant-index.js';
import { grantTable } from './grants/index.js';
import { RefreshTokenSealing } from './tokens/refresh-token-sealer.js';
import { answerClientError, routeConnectRequests } from './http/client-errors.js';
import { BODY_LIMIT_BYTES } from './http/form-body.js';
import { loggerOptions, redactUrl } from './http/logging.js';
import { measureRequestDurations } from './http/request-metrics.js';
import { BAD_URL, sendEdgeAnswer, useUnroutedAnswers } from './http/unrouted.js';
import type { Keystore } from './keys/keystore.js';
import type { ServerMetrics } from './metrics/server-metrics.js';
import { offeredScope } from './oauth/resource.js';
import { Pages } from './pages/view.js';
import { ResourceRegistry } from './resources/registry.js';
import { authorizeRoutes } from './routes/authorize/index.js';
import { discoveryRoutes } from './routes/discovery.js';
import { healthRoutes } from './routes/health.js';
import { introspectionRoute } from './routes/introspection.js';
import { metricsRoute } from './routes/metrics.js';
import { registrationRoute } from './routes/registration.js';
import { revocationRoute } from './routes/revocation.js';
import { tokenRoute } from './routes/token.js';
import { BrowserSession } from './session/browser-session.js';
import type { Signer } from './session/signer.js';
import type { Store } from './store/types.js';
import { AccessTokens } from './tokens/access-token.js';
import type { UserRegistry } from './users/registry.js';
import { PasswordSignIn } from './users/sign-in.js';
import { SignInThrottle } from './users/sign-in-throttle.js';
import { VerificationSlots } from './users/verification-slots.js';

export interface ServerDependencies {
  readonly keystore: Keystore;
  readonly clients: ClientRegistry;
  readonly users: UserRegistry;
  /** Protected resources (RFC 8707) clients may name with `resource`; default: none. */
  readonly resources?: ResourceRegistry;
  readonly store: Store;
  /** Signs session cookies and forms; instances behind one load balancer need the same secret. */
  readonly signer: Signer;
  /** Injected so tests control time. */
  readonly clock?: Clock;
  /** Overrides the logger built from config (tests pass `false` or a stream). */
  readonly logger?: FastifyServerOptions['logger'];
  /** Trust anchors (PEM) and DNS for fetching URLs clients control (tests); default: Node's CA list and DNS. */
  readonly outboundFetch?: { readonly ca?: string; readonly resolve?: Resolver };
  /**
   * The Prometheus series to record into, when METRICS_PORT is set (served by
   * buildMetricsServer, or by this app when METRICS_PORT equals PORT); none: nothing is measured.
   */
  readonly metrics?: ServerMetrics | undefined;
}

/**
 * Where the server's security events go: the audit log (one `info` line each), and the
 * metrics when there are any. A consumer that throws is logged, never fails the request.
 */
export function serverEvents(
  log: AuditSink & { error(fields: Record<string, unknown>, message: string): void },
  metrics?: ServerMetrics,
): SecurityEvents {
  return fanOut([auditLog(log), ...(metrics ? [metrics] : [])], (err) =>
    log.error({ err: { message: (err as Error).message } }, 'security event consumer failed'),
  );
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** How often Node looks for requests past their deadline (its default is 30 s). */
const REQUEST_DEADLINE_CHECK_MS = 1000;

function commonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
}

/**
 * What a client describing itself may have, by registration or by metadata document (one
 * is as self-asserted as the other): DYNAMIC_CLIENT_GRANTS, and scopes some resource offers.
 */
function selfAssertedClientPolicy(config: Config, resources: ResourceRegistry): ClientMetadataPolicy {
  return { grantTypes: config.dynamicClientGrants, offeredScopes: () => offeredScope(resources.all()) };
}

/**
 * TRUST_PROXY as Fastify takes it; proxy-addr then walks X-Forwarded-For from the right
 * and yields the first address no trusted proxy stands for (RFC 7239 §8.1). A hop count
 * is a function: Fastify turns a bare number into "trust nobody".
 */
function trustedProxies(trust: TrustProxy): NonNullable<FastifyServerOptions['trustProxy']> {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

/** Clients whose client_id is the URL of their metadata document, when CLIENT_ID_METADATA_DOCUMENTS is on. */
function metadataDocumentSource(
  config: Config,
  deps: ServerDependencies,
  app: FastifyInstance,
  clock: Clock,
  policy: ClientMetadataPolicy,
): ClientSource[] {
  const settings = config.clientIdMetadata;
  if (!settings.enabled) return [];
  const source = new MetadataDocumentClients({
    policy,
    fetch: {
      allowHttp: settings.allowInsecure,
      allowSpecialUseAddresses: settings.allowInsecure,
      timeoutMs: settings.timeoutMs,
      maxBytes: settings.maxBytes,
      ca: deps.outboundFetch?.ca,
      resolve: deps.outboundFetch?.resolve,
    },
    ttl: { minSeconds: settings.minTtl, maxSeconds: settings.maxTtl },
    clock,
    onRefused: (clientId, reason) => app.log.info({ clientId, reason }, 'client id metadata document not usable: the client is unknown'),
  });
  return [source];
}

/** Clients that registered themselves (RFC 7591), when DYNAMIC_CLIENT_REGISTRATION is open or token. */
function dynamicRegistrations(
  config: Config,
  deps: { store: Store; clients: ClientRegistry; policy: ClientMetadataPolicy; clock: Clock; events: SecurityEvents },
): ClientRegistrations | undefined {
  if (config.dynamicClientRegistration === 'off') return undefined;
  return new ClientRegistrations(
    deps.store.clientRegistrations,
    deps.store.attempts,
    deps.clients,
    {
      policy: deps.policy,
      ttlSeconds: config.dynamicClientTtl,
      rateLimit: {
        limit: config.registrationRateLimit,
        windowSeconds: config.registrationRateWindow,
        ipv6LimitPrefix: config.ipv6LimitPrefix,
      },
      registrationClientUri: (clientId) => `${config.issuer}/oauth2/register/${clientId}`,
    },
    deps.clock,
    deps.events,
  );
}

/** Builds the application; never listens, so tests drive it with `inject()`. */
export async function buildServer(config: Config, deps: ServerDependencies): Promise<FastifyInstance> {
  const { keystore, clients, store } = deps;
  const resources = deps.resources ?? ResourceRegistry.fromEntries([]);
  const clock = deps.clock ?? systemClock;
  const pathPrefix = new URL(config.issuer).pathname.replace(/\/+$/, '');
  const oauth2 = `${pathPrefix}/oauth2`;
  const authorizePath = `${oauth2}/authorize`;
  const pages = new Pages(config.brand);
  const logoutPath = `${oauth2}/logout`;
  const edges = {
    isBrowserPath: (path: string) => path === authorizePath || path.startsWith(`${authorizePath}/`) || path === logoutPath,
    pages,
  };
  const requestTimeoutMs = config.httpRequestTimeout * 1000;

  const app: FastifyInstance = Fastify({
    logger: deps.logger ?? loggerOptions(config.logLevel),
    trustProxy: trustedProxies(config.trustProxy),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Headers and body must arrive within HTTP_REQUEST_TIMEOUT, else 408 and the
    // connection closes (Fastify's default, 0, lets a slow body hold a connection forever).
    requestTimeout: requestTimeoutMs,
    http: { requestTimeout: requestTimeoutMs, headersTimeout: requestTimeoutMs, connectionsCheckingInterval: REQUEST_DEADLINE_CHECK_MS },
    clientErrorHandler: answerClientError(() => app.log),
    frameworkErrors: (_error, request, reply) => {
      request.log.info({ url: redactUrl(request.url) }, 'malformed URL');
      commonHeaders(request, reply);
      return sendEdgeAnswer(request, reply, BAD_URL, edges);
    },
    // While closing, requests still arriving on open connections are served (with
    // Connection: close) rather than refused with 503.
    return503OnClosing: false,
  });
  const { metrics } = deps;
  const events = serverEvents(app.log, metrics);
  if (metrics) measureRequestDurations(app, metrics);
  routeConnectRequests(app);
  useUnroutedAnswers(app, { ...edges, realm: config.issuer });

  app.addHook('onSend', async (request, reply) => commonHeaders(request, reply));

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
  );
  const grantIndexing = new GrantIndexing(store.grantIndex, clock);
  const refreshTokenSealing = new RefreshTokenSealing(store, clock);
  const grants = grantTable({
    store,
    accessTokens,
    resources,
    signIn,
    clock,
    grantIndexing,
    refreshLifetimes: { absoluteSeconds: config.refreshTokenTtl, idleSeconds: config.refreshTokenIdleTtl },
    refreshReuseGraceSeconds: config.refreshReuseGrace,
    refreshTokenSealing,
    events,
  });
  const tokenStatus = { accessTokens, refreshTokens: store, refreshTokenSealing, denylist: store, grants: store, clock };
  const registrationPath = `${oauth2}/register`;
  const selfAsserted = selfAssertedClientPolicy(config, resources);
  const registrations = dynamicRegistrations(config, { store, clients, policy: selfAsserted, clock, events });
  // The clients file first, so no other source can shadow one of its ids.
  const directory = clientDirectory(
    registrySource(clients),
    ...(registrations ? [registrations] : []),
    ...metadataDocumentSource(config, deps, app, clock, selfAsserted),
  );

  await app.register(healthRoutes, { keystore, store, clock });
  // METRICS_PORT equal to PORT, explicitly: the operator chose to serve metrics on the public listener.
  if (metrics && config.metricsPort === config.port) await app.register(metricsRoute, { metrics });
  await app.register(discoveryRoutes, {
    issuer: config.issuer,
    pathPrefix,
    jwksCacheTtl: config.jwksCacheTtl,
    keystore,
    clients,
    resources,
    implementedGrants: [...grants.keys()],
    clientIdMetadataDocuments: config.clientIdMetadata.enabled ? { grantTypes: metadataDocumentGrants(selfAsserted) } : undefined,
    dpopAlgorithms: config.dpop.algorithms,
    clock,
    registration: registrations && { endpoint: `${config.issuer}/oauth2/register`, grantTypes: config.dynamicClientGrants },
  });
  const realm = config.issuer;
  const proofs = new TokenEndpointProofs(
    store,
    // Derived from SESSION_SECRET, so instances behind one load balancer accept each other's nonces.
    new DpopNonces(config.sessionSecret ?? randomBytes(32), config.dpop.proofWindowSeconds),
    {
      tokenEndpoint: `${config.issuer}/oauth2/token`,
      algorithms: config.dpop.algorithms,
      windowSeconds: config.dpop.proofWindowSeconds,
      requireNonce: config.dpop.requireNonce,
      onRefused: (reason) => events.emit({ event: 'dpop.proof_failed', reason }),
    },
    clock,
  );
  await app.register(tokenRoute, { path: `${oauth2}/token`, realm, clients, directory, grants, proofs, events });
  await app.register(revocationRoute, {
    path: `${oauth2}/revoke`,
    realm,
    clients,
    directory,
    revocation: { ...tokenStatus, revocationMarkSeconds: config.refreshTokenTtl, events },
  });
  await app.register(introspectionRoute, {
    path: `${oauth2}/introspect`,
    realm,
    directory,
    introspection: { ...tokenStatus, issuer: config.issuer, events },
  });
  if (registrations) {
    await app.register(registrationRoute, {
      path: registrationPath,
      realm,
      registrations,
      initialAccessTokens:
        config.dynamicClientRegistration === 'token' ? new InitialAccessTokens(config.registrationInitialAccessTokens) : undefined,
    });
  }
  await app.register(authorizeRoutes, {
    issuer: config.issuer,
    paths: { authorize: authorizePath, login: `${authorizePath}/login`, consent: `${authorizePath}/consent`, logout: logoutPath },
    clients: directory,
    reviewedClients: clients,
    resources,
    pages,
    signIn,
    signer: deps.signer,
    session: new BrowserSession(
      deps.signer,
      { path: `${oauth2}/`, secure: config.issuer.startsWith('https:'), ttlSeconds: config.sessionTtl },
      clock,
    ),
    responses: {
      codes: store,
      accessTokens,
      authorizationCodeTtl: config.authorizationCodeTtl,
      refreshTokenTtl: config.refreshTokenTtl,
      grantIndexing,
      events,
    },
    consents: store.consents,
    consentTtlSeconds: config.consentTtl,
    defaultAudience: config.accessTokenAudience,
    clock,
    codeResponseMode: config.codeResponseMode,
  });
  return app;
}

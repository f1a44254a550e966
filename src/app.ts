import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { metadataDocumentGrants } from './clients/metadata-document.js';
import type { TrustProxy } from './config/client-address.js';
import type { Config } from './config/index.js';
import { answerClientError, routeConnectRequests } from './http/client-errors.js';
import { BODY_LIMIT_BYTES } from './http/form-body.js';
import { loggerOptions, redactUrl } from './http/logging.js';
import { measureRequestDurations } from './http/request-metrics.js';
import { BAD_URL, sendEdgeAnswer, useUnroutedAnswers } from './http/unrouted.js';
import { endpointsOf } from './endpoints.js';
import { trustsIdJags } from './identity/id-jag-issuers.js';
import { Pages } from './pages/view.js';
import { authorizeRoutes } from './routes/authorize/index.js';
import { deviceAuthorizationRoute } from './routes/device-authorization.js';
import { discoveryRoutes } from './routes/discovery.js';
import { healthRoutes } from './routes/health.js';
import { introspectionRoute } from './routes/introspection.js';
import { metricsRoute } from './routes/metrics.js';
import { registrationRoute } from './routes/registration.js';
import { revocationRoute } from './routes/revocation.js';
import { tokenRoute } from './routes/token.js';
import { userinfoRoute } from './routes/userinfo.js';
import { DEFAULT_ID_TOKEN_ALGORITHM } from './oidc/id-token.js';
import { SIGNING_ALGORITHMS } from '@oauth2-token-service/verifier/algorithms';
import { buildServices, type ServiceDependencies, type Services } from './services/index.js';
import { registerAdminApi, registerConsole } from './app-admin.js';

export { serverEvents } from './services/index.js';

export interface ServerDependencies extends ServiceDependencies {
  /** Overrides the logger built from config (tests pass `false` or a stream). */
  readonly logger?: FastifyServerOptions['logger'];
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** What an ID token may be signed with: the default (RS256, which Discovery §3 requires listed) first. */
const ID_TOKEN_ALGORITHMS = [DEFAULT_ID_TOKEN_ALGORITHM, ...SIGNING_ALGORITHMS.filter((alg) => alg !== DEFAULT_ID_TOKEN_ALGORITHM)];

/** How often Node looks for requests past their deadline (its default is 30 s). */
const REQUEST_DEADLINE_CHECK_MS = 1000;

function commonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
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

/** The Fastify instance: logging, request ids, deadlines, and the answers to what no route takes. */
function fastifyFor(
  config: Config,
  deps: ServerDependencies,
  edges: { isBrowserPath(path: string): boolean; pages: Pages },
): FastifyInstance {
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
  return app;
}

/** Every endpoint, each at its path in the endpoint table (src/endpoints.ts). */
async function registerRoutes(
  app: FastifyInstance,
  config: Config,
  deps: ServerDependencies,
  services: Services,
  pages: Pages,
): Promise<void> {
  const { keystore, clients, store, providers } = deps;
  const { endpoints, clock, events, resources, grants, directory, authentication, registrations, tokenStatus } = services;
  const realm = config.issuer;
  await app.register(healthRoutes, { keystore, clients, store, clock });
  // METRICS_PORT equal to PORT, explicitly: the operator chose to serve metrics on the public listener.
  if (deps.metrics && config.metricsPort === config.port) await app.register(metricsRoute, { metrics: deps.metrics });
  await app.register(discoveryRoutes, {
    endpoints,
    jwksCacheTtl: config.jwksCacheTtl,
    keystore,
    clients,
    resources,
    implementedGrants: [...grants.keys()],
    clientIdMetadataDocuments: config.clientIdMetadata.enabled ? { grantTypes: metadataDocumentGrants(services.selfAsserted) } : undefined,
    idTokenAlgorithms: ID_TOKEN_ALGORITHMS,
    dpopAlgorithms: config.dpop.algorithms,
    clock,
    registration: registrations && { grantTypes: config.dynamicClientGrants },
    trustsIdJags: providers && (() => trustsIdJags(providers)),
    trustsWorkloads: () => services.workloads.size > 0,
  });
  await app.register(userinfoRoute, {
    path: endpoints.path('userinfo'),
    url: endpoints.url('userinfo'),
    realm,
    userinfo: services.userinfo,
    proofs: services.resourceProofs,
    dpopAlgorithms: config.dpop.algorithms,
    directory,
    clients,
  });
  await app.register(tokenRoute, {
    path: endpoints.path('token'),
    realm,
    clients,
    authentication,
    grants,
    clientless: services.workloadGrant,
    proofs: services.proofs,
    events,
  });
  await app.register(deviceAuthorizationRoute, {
    path: endpoints.path('deviceAuthorization'),
    realm,
    verificationUri: endpoints.url('device'),
    authentication,
    devices: services.devices,
  });
  await app.register(revocationRoute, {
    path: endpoints.path('revocation'),
    realm,
    clients,
    authentication,
    revocation: { ...tokenStatus, revocationMarkSeconds: config.refreshTokenTtl, events },
  });
  await app.register(introspectionRoute, {
    path: endpoints.path('introspection'),
    realm,
    authentication,
    introspection: { ...tokenStatus, issuer: config.issuer, events, subjects: services.entries.subjects },
  });
  if (registrations) {
    await app.register(registrationRoute, {
      path: endpoints.path('registration'),
      realm,
      registrations,
      initialAccessTokens: services.initialAccessTokens,
    });
  }
  await registerAdminApi(app, config, deps, services);
  await registerConsole(app, config, deps, services, pages);
  await app.register(authorizeRoutes, {
    issuer: config.issuer,
    paths: {
      authorize: endpoints.path('authorize'),
      login: endpoints.path('login'),
      consent: endpoints.path('consent'),
      logout: endpoints.path('logout'),
      upstream: endpoints.path('upstream'),
      upstreamCallback: endpoints.upstreamCallbackPath(':provider'),
      upstreamSignedOut: endpoints.upstreamSignedOutPath(':provider'),
      device: endpoints.path('device'),
      account: endpoints.path('account'),
    },
    pipeline: services.authorizePipeline,
    clients: directory,
    reviewedClients: clients,
    resources,
    pages,
  });
}

/**
 * The upstream providers' discovery starts when the app is ready (listen, or the first
 * inject) and again after each reload of their file, without holding up either; it stops
 * with the app.
 */
function discoverProvidersWhenReady(app: FastifyInstance, { upstream }: Services): void {
  if (!upstream) return;
  let stop: (() => void) | undefined;
  app.addHook('onReady', async () => {
    stop = upstream.discoverInBackground(app.log);
  });
  app.addHook('onClose', async () => stop?.());
}

/** Builds the application; never listens, so tests drive it with `inject()`. */
export async function buildServer(config: Config, deps: ServerDependencies): Promise<FastifyInstance> {
  const endpoints = endpointsOf(config.issuer);
  const pages = new Pages(config.brand);
  const edges = { isBrowserPath: endpoints.isBrowserPath, pages };
  const app = fastifyFor(config, deps, edges);
  if (deps.metrics) measureRequestDurations(app, deps.metrics);
  routeConnectRequests(app);
  useUnroutedAnswers(app, { ...edges, realm: config.issuer });
  // Set when the request arrives, not in an onSend hook: an async hook per answer costs a
  // promise and a microtask turn on the token endpoint's hot path.
  app.addHook('onRequest', (request, reply, done) => {
    commonHeaders(request, reply);
    done();
  });
  const services = buildServices(config, deps, app.log);
  if (services.entries.owned) app.addHook('onClose', () => services.entries.sync.stop());
  await registerRoutes(app, config, deps, services, pages);
  discoverProvidersWhenReady(app, services);
  return app;
}

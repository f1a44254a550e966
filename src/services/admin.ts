import { createVerifier } from '@oauth2-token-service/verifier';
import type { AdminCallerDependencies } from '../admin/callers.js';
import type { AdminGrantsDependencies } from '../admin/grants.js';
import type { OpenApiSettings } from '../admin/openapi.js';
import { type Clock, nowSeconds } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Endpoints } from '../endpoints.js';
import type { SecurityEvents } from '../events/types.js';
import type { AccessTokens } from '../tokens/access-token.js';
import type { ServiceDependencies } from './index.js';

/**
 * The admin API's services: who may call it (our verifier, made for the admin API's
 * resource, reading the keys we publish rather than fetching our own JWKS), what the grants
 * routes use, and the settings of its OpenAPI document.
 */
export function adminServices(
  config: Config,
  deps: ServiceDependencies,
  services: { readonly endpoints: Endpoints; readonly clock: Clock; readonly events: SecurityEvents; readonly accessTokens: AccessTokens },
) {
  const { endpoints, clock, events } = services;
  const { store } = deps;
  const verifier = createVerifier({
    issuer: config.issuer,
    resource: endpoints.url('admin'),
    getKey: async (header) => services.accessTokens.publicKeyFor(header, nowSeconds(clock)),
    clock,
    dpop: {
      algorithms: config.dpop.algorithms,
      proofWindowSeconds: config.dpop.proofWindowSeconds,
      // RFC 9449 §11.1: each proof once, across instances (the store's replay records).
      replayCache: { rememberProof: (jkt, jti, ttlSeconds) => store.rememberDpopProof(jkt, jti, ttlSeconds) },
    },
  });
  const callers: AdminCallerDependencies = {
    verifier,
    denylist: store,
    grants: store,
    users: deps.users,
    dpopAlgorithms: config.dpop.algorithms,
  };
  const grants: AdminGrantsDependencies = {
    index: store.grantIndex,
    revocation: store,
    consents: store.consents,
    // As long as any grant can live: a refresh family, or a code and the access token it yields (as `grants revoke`).
    revocationMarkSeconds: Math.max(config.refreshTokenTtl, config.authorizationCodeTtl + config.accessTokenTtl),
    clock,
    events,
  };
  const openApi: OpenApiSettings = {
    serverUrl: endpoints.url('admin'),
    tokenUrl: endpoints.url('token'),
    authorizationUrl: endpoints.url('authorize'),
    version: '1',
  };
  return { verifier, callers, grants, openApi };
}

export type AdminServices = ReturnType<typeof adminServices>;

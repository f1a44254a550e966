import { ClientAssertions } from '../clients/client-assertions.js';
import { ClientKeys } from '../clients/client-keys.js';
import type { ClientDirectory, ClientSource } from '../clients/directory.js';
import { MetadataDocumentClients } from '../clients/metadata-documents.js';
import type { ClientMetadataPolicy } from '../clients/registration-metadata.js';
import { ClientRegistrations } from '../clients/registrations.js';
import type { ClientRegistry } from '../clients/registry.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Endpoints } from '../endpoints.js';
import type { SecurityEvents } from '../events/types.js';
import type { FreshnessBounds } from '../fetch/freshness.js';
import type { FetchPolicy } from '../fetch/safe-fetch.js';
import type { ClientAuthentication } from '../http/client-auth.js';
import { offeredScope } from '../resources/indicators.js';
import { withoutAdminScopes } from '../oauth/admin-scopes.js';
import type { ProtectedResource } from '../resources/registry.js';
import type { Store } from '../store/types.js';
import type { ServiceDependencies, ServiceLog } from './index.js';

/** The clients besides CLIENTS_FILE: those that describe themselves, by metadata document or registration. */

/**
 * What a client describing itself may have, by registration or by metadata document (one
 * is as self-asserted as the other): DYNAMIC_CLIENT_GRANTS, and scopes some resource offers.
 */
export function selfAssertedClientPolicy(config: Config, resources: { all(): readonly ProtectedResource[] }): ClientMetadataPolicy {
  return {
    grantTypes: config.dynamicClientGrants,
    // Never the admin API's scopes: only an operator's CLIENTS_FILE gives a client those.
    offeredScopes: () => withoutAdminScopes(offeredScope(resources.all())),
    allowHttpJwksUri: config.clientIdMetadata.allowInsecure,
  };
}

/**
 * How URLs clients name are fetched (metadata documents, jwks_uri), and for how long what
 * they answer is kept: the CLIENT_ID_METADATA_* settings, whether or not documents are on.
 */
function clientFetching(config: Config, deps: ServiceDependencies): { fetch: FetchPolicy; ttl: FreshnessBounds } {
  const settings = config.clientIdMetadata;
  return {
    fetch: {
      allowHttp: settings.allowInsecure,
      allowSpecialUseAddresses: settings.allowInsecure,
      timeoutMs: settings.timeoutMs,
      maxBytes: settings.maxBytes,
      ca: deps.outboundFetch?.ca,
      resolve: deps.outboundFetch?.resolve,
    },
    ttl: { minSeconds: settings.minTtl, maxSeconds: settings.maxTtl },
  };
}

/** Clients whose client_id is the URL of their metadata document, when CLIENT_ID_METADATA_DOCUMENTS is on. */
export function metadataDocumentSource(
  config: Config,
  deps: ServiceDependencies,
  log: ServiceLog,
  clock: Clock,
  policy: ClientMetadataPolicy,
): ClientSource[] {
  if (!config.clientIdMetadata.enabled) return [];
  const source = new MetadataDocumentClients({
    policy,
    ...clientFetching(config, deps),
    clock,
    onRefused: (clientId, reason) => log.info({ clientId, reason }, 'client id metadata document not usable: the client is unknown'),
  });
  return [source];
}

/**
 * How the back-channel endpoints authenticate clients: secrets against the directory, and
 * private_key_jwt assertions (RFC 7523) with the client's keys, addressed to our issuer
 * identifier (or our token endpoint, see ClientAssertionSettings), each jti used once across
 * instances (the store). Every refusal is a client.authentication_failed event.
 */
export function clientAuthentication(
  config: Config,
  deps: ServiceDependencies,
  services: { log: ServiceLog; clock: Clock; endpoints: Endpoints; directory: ClientDirectory; events: SecurityEvents },
): ClientAuthentication {
  const { log, clock, endpoints } = services;
  const keys = new ClientKeys({
    ...clientFetching(config, deps),
    clock,
    onFetchFailed: (jwksUri, reason) => log.info({ jwksUri, reason }, 'client jwks_uri not usable: its assertions are refused'),
  });
  const audience = {
    issuer: endpoints.issuer,
    tokenEndpoint: endpoints.url('token'),
    strictAudience: config.clientAssertionStrictAudience,
  };
  return {
    clients: services.directory,
    assertions: new ClientAssertions(keys, deps.store, { ...audience, clock }),
    events: services.events,
  };
}

/** Clients that registered themselves (RFC 7591), when DYNAMIC_CLIENT_REGISTRATION is open or token. */
export function dynamicRegistrations(
  config: Config,
  endpoints: Endpoints,
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
      registrationClientUri: (clientId) => endpoints.clientConfigurationUrl(clientId),
    },
    deps.clock,
    deps.events,
  );
}

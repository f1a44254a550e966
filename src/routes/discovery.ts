import { PROMPT_VALUES } from '../oauth/prompt.js';
import type { FastifyInstance } from 'fastify';
import { AUTH_METHODS, type Client, type ClientRegistry, DEVICE_CODE_GRANT, type GrantTypeName } from '../clients/registry.js';
import { type Clock, nowSeconds } from '../clock.js';
import type { Endpoints } from '../endpoints.js';
import { JWT_BEARER_GRANT } from '../clients/token-exchange-policy.js';
import { CLIENT_ASSERTION_ALGORITHMS } from '../oauth/client-assertion.js';
import { IDENTITY_SCOPES } from '../oauth/identity-scopes.js';
import { openidProviderMetadata } from '../oidc/discovery.js';
import { allowAnyOrigin } from '../http/cors.js';
import type { Keystore } from '../keys/keystore.js';
import { RESPONSE_MODES, RESPONSE_TYPES, type ResponseType } from '../oauth/response-mode.js';
import type { ResourceRegistry } from '../resources/registry.js';

export interface DiscoveryOptions {
  /** Where each endpoint is (src/endpoints.ts). */
  readonly endpoints: Endpoints;
  readonly jwksCacheTtl: number;
  readonly keystore: Keystore;
  readonly clients: ClientRegistry;
  readonly resources: Pick<ResourceRegistry, 'all'>;
  /** grant_type values this server implements (the grant table's keys). */
  readonly implementedGrants: readonly string[];
  /**
   * With CLIENT_ID_METADATA_DOCUMENTS: any client may come with an https client_id
   * (draft-ietf-oauth-client-id-metadata-document), and get these grants (metadataDocumentGrants).
   */
  readonly clientIdMetadataDocuments?: { readonly grantTypes: readonly GrantTypeName[] } | undefined;
  /** The algorithms ID tokens can be signed with (OpenID Connect Discovery §3: RS256 included). */
  readonly idTokenAlgorithms: readonly string[];
  /** DPOP_SIGNING_ALGS. */
  readonly dpopAlgorithms: readonly string[];
  readonly clock: Clock;
  /** With dynamic client registration on: its endpoint and the grants a registered client may get. */
  readonly registration?: { readonly grantTypes: readonly GrantTypeName[] } | undefined;
  /** Whether an identity provider is trusted for ID-JAGs now (`id_jag: true`; the providers file may be reloaded). */
  readonly trustsIdJags?: (() => boolean) | undefined;
  /** Whether a workload issuer is trusted now (WORKLOAD_TRUSTS_FILE, reloaded): workloads use the JWT bearer grant without a client. */
  readonly trustsWorkloads?: (() => boolean) | undefined;
}

/** Enterprise-Managed Authorization §6, draft-ietf-oauth-identity-assertion-authz-grant §7.2. */
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';

/** What a client described by a metadata document may use (src/clients/metadata-document.ts): public, or its keys. */
function metadataDocumentClients(
  grantTypes: readonly GrantTypeName[],
): Pick<Client, 'grantTypes' | 'authMethod' | 'responseTypes' | 'scope'>[] {
  const responseTypes = new Set<ResponseType>(grantTypes.includes('authorization_code') ? ['code'] : []);
  return (['none', 'private_key_jwt'] as const).map((authMethod) => ({
    grantTypes: new Set(grantTypes),
    authMethod,
    responseTypes,
    scope: [],
  }));
}

/**
 * What a client registering itself may get (src/clients/registration-metadata.ts): any of the
 * authentication methods (the MCP SDK picks its own from this list), the allowed grants.
 */
function dynamicallyRegistered(
  grantTypes: readonly GrantTypeName[],
): Pick<Client, 'grantTypes' | 'authMethod' | 'responseTypes' | 'scope'>[] {
  const responseTypes = new Set<ResponseType>(grantTypes.includes('authorization_code') ? ['code'] : []);
  return AUTH_METHODS.map((authMethod) => ({ grantTypes: new Set(grantTypes), authMethod, responseTypes, scope: [] }));
}

/**
 * RFC 8414 §2: token_endpoint_auth_signing_alg_values_supported "MUST be present if either of
 * these authentication methods are specified in the token_endpoint_auth_methods_supported
 * entry" (private_key_jwt, client_secret_jwt); the same for revocation (§2) and introspection (§2).
 */
function signingAlgorithms(endpoint: string, authMethods: readonly string[]): Record<string, readonly string[]> {
  return authMethods.includes('private_key_jwt') ? { [`${endpoint}_auth_signing_alg_values_supported`]: CLIENT_ASSERTION_ALGORITHMS } : {};
}

/**
 * RFC 8414 metadata listing only what is enabled: implemented and registered by some client
 * of CLIENTS_FILE, or available to clients that come by themselves (metadata documents,
 * dynamic registration).
 */
export function authorizationServerMetadata(options: DiscoveryOptions): Record<string, unknown> {
  const { endpoints, clients, registration } = options;
  const registered = [
    ...clients.all(),
    ...(options.clientIdMetadataDocuments ? metadataDocumentClients(options.clientIdMetadataDocuments.grantTypes) : []),
    ...(registration ? dynamicallyRegistered(registration.grantTypes) : []),
  ];
  const grantTypes = options.implementedGrants.filter((g) => registered.some((c) => c.grantTypes.has(g as never)));
  const authMethods = AUTH_METHODS.filter((m) => registered.some((c) => c.authMethod === m));
  const resources = options.resources.all();
  const responseTypes = RESPONSE_TYPES.filter((r) => registered.some((c) => c.responseTypes.has(r)));
  const devices = grantTypes.includes(DEVICE_CODE_GRANT);
  // The identity scopes of OpenID Connect are available to every client a user approves: the authorization endpoint's, and devices.
  const identity = responseTypes.length > 0 || devices ? IDENTITY_SCOPES : [];
  const scopes = [...new Set([...identity, ...registered.flatMap((c) => c.scope), ...resources.flatMap((r) => r.scope)])].sort();
  // The ID-JAG profile of the JWT bearer grant: a provider trusted for ID-JAGs, and a client that may use the grant.
  const idJags = grantTypes.includes(JWT_BEARER_GRANT) && options.trustsIdJags?.() === true;
  // MCP Workload Identity Federation: "The grant_types_supported array MUST include the value
  // urn:ietf:params:oauth:grant-type:jwt-bearer" (a workload needs no client to use it).
  if (options.trustsWorkloads?.() === true && !grantTypes.includes(JWT_BEARER_GRANT)) grantTypes.push(JWT_BEARER_GRANT);
  return {
    issuer: endpoints.issuer,
    // RFC 8414 §2: "REQUIRED unless no grant types are supported that use the authorization
    // endpoint". Always listed: the endpoint exists, and MCP clients (the official SDK) refuse
    // metadata without it, even when they only use client_credentials.
    authorization_endpoint: endpoints.url('authorize'),
    // OpenID Connect Prompt Create §4.1 registers prompt_values_supported for RFC 8414 metadata too.
    ...(responseTypes.length > 0 ? { prompt_values_supported: [...PROMPT_VALUES] } : {}),
    // OpenID Connect RP-Initiated Logout 1.0 §2.1 (registered for RFC 8414 metadata as well): where a
    // client sends the browser to sign out, with id_token_hint or client_id, post_logout_redirect_uri and state.
    ...(responseTypes.length > 0 ? { end_session_endpoint: endpoints.url('logout') } : {}),
    token_endpoint: endpoints.url('token'),
    // RFC 8628 §4: "URL of the authorization server's device authorization endpoint".
    ...(devices ? { device_authorization_endpoint: endpoints.url('deviceAuthorization') } : {}),
    // OpenID Connect Discovery §3 (registered for RFC 8414 metadata as well).
    ...(responseTypes.length > 0 ? { userinfo_endpoint: endpoints.url('userinfo') } : {}),
    jwks_uri: endpoints.url('jwks'),
    grant_types_supported: grantTypes,
    response_types_supported: responseTypes,
    response_modes_supported: RESPONSE_MODES,
    token_endpoint_auth_methods_supported: authMethods,
    ...signingAlgorithms('token_endpoint', authMethods),
    revocation_endpoint: endpoints.url('revocation'),
    revocation_endpoint_auth_methods_supported: authMethods,
    ...signingAlgorithms('revocation_endpoint', authMethods),
    introspection_endpoint: endpoints.url('introspection'),
    introspection_endpoint_auth_methods_supported: authMethods.filter((m) => m !== 'none'),
    ...signingAlgorithms('introspection_endpoint', authMethods),
    // RFC 8414 §2: "URL of the authorization server's OAuth 2.0 Dynamic Client Registration endpoint [RFC7591]".
    ...(registration ? { registration_endpoint: endpoints.url('registration') } : {}),
    scopes_supported: scopes,
    code_challenge_methods_supported: ['S256'],
    // RFC 9449 §5.1: "A JSON array containing a list of the JWS alg values (from the
    // [IANA.JOSE.ALGS] registry) supported by the authorization server for DPoP proof JWTs."
    dpop_signing_alg_values_supported: options.dpopAlgorithms,
    // RFC 9207 §3.
    authorization_response_iss_parameter_supported: true,
    // RFC 9728 §4: "JSON array containing a list of resource identifiers for OAuth protected
    // resources that can be used with this authorization server". RFC 8414 and RFC 8707
    // define no field saying that `resource` is supported.
    ...(resources.length > 0 ? { protected_resources: resources.map((r) => r.resource) } : {}),
    // CIMD §6: servers that publish RFC 8414 metadata "MUST include" this property to signal support.
    ...(options.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
    // Enterprise-Managed Authorization §6: a client "can determine that a Resource Authorization
    // Server supports this profile by checking for urn:ietf:params:oauth:grant-profile:id-jag in
    // the authorization_grant_profiles_supported field".
    ...(idJags ? { authorization_grant_profiles_supported: [ID_JAG_GRANT_PROFILE] } : {}),
  };
}

export async function discoveryRoutes(app: FastifyInstance, options: DiscoveryOptions): Promise<void> {
  const { keystore, clock, endpoints } = options;

  app.get(endpoints.path('jwks'), async (_request, reply) => {
    const jwks = keystore.jwksAt(nowSeconds(clock));
    return allowAnyOrigin(reply)
      .header('content-type', 'application/json;charset=UTF-8')
      .header('cache-control', `public, max-age=${options.jwksCacheTtl}`)
      .send(JSON.stringify(jwks));
  });

  // OpenID Connect Discovery §4: appended to the issuer (its path kept); same registries, read now.
  app.get(endpoints.path('openidConfiguration'), async (_request, reply) =>
    allowAnyOrigin(reply)
      .header('content-type', 'application/json;charset=UTF-8')
      .header('cache-control', 'public, max-age=300')
      .send(
        JSON.stringify(
          openidProviderMetadata(authorizationServerMetadata(options), { endpoints, idTokenAlgorithms: options.idTokenAlgorithms }),
        ),
      ),
  );

  // RFC 8414 §3: the well-known segment goes between the host and the issuer's path.
  // Built on every request, from the registries as they are now (they may be reloaded).
  app.get(endpoints.authorizationServerMetadataPath, async (_request, reply) =>
    allowAnyOrigin(reply)
      .header('content-type', 'application/json;charset=UTF-8')
      .header('cache-control', 'public, max-age=300')
      .send(JSON.stringify(authorizationServerMetadata(options))),
  );
}

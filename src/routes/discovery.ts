import type { FastifyInstance } from 'fastify';
import { AUTH_METHODS, type ClientRegistry } from '../clients/registry.js';
import { type Clock, nowSeconds } from '../clock.js';
import { allowAnyOrigin } from '../http/cors.js';
import type { Keystore } from '../keys/keystore.js';
import { RESPONSE_MODES, RESPONSE_TYPES } from '../oauth/response-mode.js';
import type { ResourceRegistry } from '../resources/registry.js';

export interface DiscoveryOptions {
  readonly issuer: string;
  readonly pathPrefix: string;
  readonly jwksCacheTtl: number;
  readonly keystore: Keystore;
  readonly clients: ClientRegistry;
  readonly resources: Pick<ResourceRegistry, 'all'>;
  /** grant_type values this server implements (the grant table's keys). */
  readonly implementedGrants: readonly string[];
  readonly clock: Clock;
}

/** RFC 8414 metadata listing only what is enabled: implemented and registered by some client. */
export function authorizationServerMetadata(options: DiscoveryOptions): Record<string, unknown> {
  const { issuer, clients } = options;
  const registered = clients.all();
  const grantTypes = options.implementedGrants.filter((g) => registered.some((c) => c.grantTypes.has(g as never)));
  const authMethods = AUTH_METHODS.filter((m) => registered.some((c) => c.authMethod === m));
  const resources = options.resources.all();
  const scopes = [...new Set([...registered.flatMap((c) => c.scope), ...resources.flatMap((r) => r.scope)])].sort();
  const responseTypes = RESPONSE_TYPES.filter((r) => registered.some((c) => c.responseTypes.has(r)));
  return {
    issuer,
    ...(responseTypes.length > 0 ? { authorization_endpoint: `${issuer}/oauth2/authorize` } : {}),
    token_endpoint: `${issuer}/oauth2/token`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    grant_types_supported: grantTypes,
    response_types_supported: responseTypes,
    response_modes_supported: RESPONSE_MODES,
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    revocation_endpoint_auth_methods_supported: authMethods,
    introspection_endpoint: `${issuer}/oauth2/introspect`,
    introspection_endpoint_auth_methods_supported: authMethods.filter((m) => m !== 'none'),
    scopes_supported: scopes,
    code_challenge_methods_supported: ['S256'],
    // RFC 9207 §3.
    authorization_response_iss_parameter_supported: true,
    // RFC 9728 §4: "JSON array containing a list of resource identifiers for OAuth protected
    // resources that can be used with this authorization server". RFC 8414 and RFC 8707
    // define no field saying that `resource` is supported.
    ...(resources.length > 0 ? { protected_resources: resources.map((r) => r.resource) } : {}),
  };
}

export async function discoveryRoutes(app: FastifyInstance, options: DiscoveryOptions): Promise<void> {
  const { keystore, clock, pathPrefix } = options;

  app.get(`${pathPrefix}/.well-known/jwks.json`, async (_request, reply) => {
    const jwks = keystore.jwksAt(nowSeconds(clock));
    return allowAnyOrigin(reply)
      .header('content-type', 'application/json;charset=UTF-8')
      .header('cache-control', `public, max-age=${options.jwksCacheTtl}`)
      .send(JSON.stringify(jwks));
  });

  // RFC 8414 §3: the well-known segment goes between the host and the issuer's path.
  // Built on every request, from the registries as they are now (they may be reloaded).
  app.get(`/.well-known/oauth-authorization-server${pathPrefix}`, async (_request, reply) =>
    allowAnyOrigin(reply)
      .header('content-type', 'application/json;charset=UTF-8')
      .header('cache-control', 'public, max-age=300')
      .send(JSON.stringify(authorizationServerMetadata(options))),
  );
}

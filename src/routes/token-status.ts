import type { FastifyInstance } from 'fastify';
import type { ClientRegistry } from '../clients/registry.js';
import { InvalidClient } from '../errors.js';
import { authenticateClient, presentedClientCredentials } from '../http/client-auth.js';
import { sendOAuthJson } from '../http/oauth-reply.js';
import { introspectToken, revokeToken, type TokenStatusServices } from '../tokens/token-status.js';
import { formRequest, useOAuthFormBodies } from './token.js';

export interface TokenStatusRouteOptions {
  readonly paths: { readonly revoke: string; readonly introspect: string };
  readonly realm: string;
  readonly clients: ClientRegistry;
  readonly services: TokenStatusServices;
}

/** POST /oauth2/revoke (RFC 7009) and POST /oauth2/introspect (RFC 7662). */
export async function tokenStatusRoutes(app: FastifyInstance, options: TokenStatusRouteOptions): Promise<void> {
  const { clients, services } = options;
  useOAuthFormBodies(app, options.realm);

  // RFC 7009 §2.1: public clients revoke with their client_id; confidential ones authenticate.
  app.post(options.paths.revoke, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    const client = authenticateClient(presentedClientCredentials(request.headers.authorization, body, query), clients);
    // token_type_hint is only a hint (§2.1), and our two kinds of token tell themselves apart.
    await revokeToken(body.require('token'), client, services);
    // §2.2: "The authorization server responds with HTTP status code 200 if the token
    // has been revoked successfully or if the client submitted an invalid token."
    return reply.code(200).header('cache-control', 'no-store').header('pragma', 'no-cache').send();
  });

  // RFC 7662 §2.1: "the endpoint MUST also require some form of authorization"; here
  // the caller authenticates as a confidential client.
  app.post(options.paths.introspect, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    const client = authenticateClient(presentedClientCredentials(request.headers.authorization, body, query), clients);
    if (client.authMethod === 'none') throw new InvalidClient('introspection needs an authenticated (confidential) client');
    return sendOAuthJson(reply, 200, await introspectToken(body.require('token'), client, services));
  });
}

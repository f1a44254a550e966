import type { FastifyInstance } from 'fastify';
import type { ClientRegistry } from '../clients/registry.js';
import { UnauthorizedClient, UnsupportedGrantType } from '../errors.js';
import type { Grant } from '../grants/types.js';
import { authenticateClient, presentedClientCredentials } from '../http/client-auth.js';
import { formRequest, useOAuthFormBodies } from '../http/form-body.js';
import { sendOAuthJson } from '../http/oauth-reply.js';

export interface TokenRouteOptions {
  readonly path: string;
  readonly realm: string;
  readonly clients: ClientRegistry;
  readonly grants: ReadonlyMap<string, Grant>;
}

/** POST /oauth2/token (RFC 6749 §3.2): authenticates the client, then dispatches on grant_type. */
export async function tokenRoute(app: FastifyInstance, options: TokenRouteOptions): Promise<void> {
  const { clients, grants } = options;
  useOAuthFormBodies(app, { realm: options.realm, storeOutage: 'server_error' });

  app.post(options.path, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    const grantType = body.require('grant_type');
    const grant = grants.get(grantType);
    if (!grant) throw new UnsupportedGrantType('the grant_type is not supported by this authorization server');

    const client = authenticateClient(presentedClientCredentials(request.headers.authorization, body, query), clients);
    if (!client.grantTypes.has(grant.grantType)) {
      throw new UnauthorizedClient(`this client is not registered for grant_type ${grant.grantType}`);
    }
    return sendOAuthJson(reply, 200, await grant.handle({ client, params: body, clientAddress: request.ip }));
  });
}

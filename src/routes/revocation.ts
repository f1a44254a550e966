import type { FastifyInstance } from 'fastify';
import type { ClientRegistry } from '../clients/registry.js';
import { authenticatedClient, type ClientAuthentication } from '../http/client-auth.js';
import { allowClientOrigin, answerPreflights } from '../http/cors.js';
import { formRequest, useOAuthFormBodies } from '../http/form-body.js';
import { type RevocationDependencies, revokeToken } from '../tokens/revocation.js';

export interface RevocationRouteOptions {
  readonly path: string;
  readonly realm: string;
  /** Clients of CLIENTS_FILE: the origins a CORS preflight may be answered for. */
  readonly clients: ClientRegistry;
  /** Every client (the file's, registered ones, metadata documents) and how each proves who it is. */
  readonly authentication: ClientAuthentication;
  readonly revocation: RevocationDependencies;
}

/** POST /oauth2/revoke (RFC 7009). */
export async function revocationRoute(app: FastifyInstance, options: RevocationRouteOptions): Promise<void> {
  const { clients, revocation } = options;
  useOAuthFormBodies(app, { realm: options.realm, storeOutage: 'temporarily_unavailable' });

  answerPreflights(app, options.path, clients);

  // RFC 7009 §2.1: public clients revoke with their client_id; confidential ones authenticate.
  app.post(options.path, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    const client = await authenticatedClient(request, { body, query }, options.authentication);
    allowClientOrigin(request, reply, client);
    // token_type_hint is only a hint (§2.1), and our two kinds of token tell themselves apart.
    await revokeToken(body.require('token'), client, revocation);
    // §2.2: "The authorization server responds with HTTP status code 200 if the token
    // has been revoked successfully or if the client submitted an invalid token."
    return reply.code(200).header('cache-control', 'no-store').header('pragma', 'no-cache').send();
  });
}

import type { FastifyInstance } from 'fastify';
import type { ClientDirectory } from '../clients/directory.js';
import type { ClientRegistry } from '../clients/registry.js';
import { UnauthorizedClient, UnsupportedGrantType } from '../errors.js';
import type { SecurityEvents } from '../events/types.js';
import type { Grant } from '../grants/types.js';
import { authenticateClient, presentedClientCredentials } from '../http/client-auth.js';
import { allowClientOrigin, answerPreflights } from '../http/cors.js';
import { formRequest, useOAuthFormBodies } from '../http/form-body.js';
import { sendOAuthJson } from '../http/oauth-reply.js';

export interface TokenRouteOptions {
  readonly path: string;
  readonly realm: string;
  /** Clients of CLIENTS_FILE: the origins a CORS preflight may be answered for. */
  readonly clients: ClientRegistry;
  /** Every client: the file's, registered ones, metadata documents. */
  readonly directory: ClientDirectory;
  readonly grants: ReadonlyMap<string, Grant>;
  /** Told the error code of every error answer. */
  readonly events: SecurityEvents;
}

/** POST /oauth2/token (RFC 6749 §3.2): authenticates the client, then dispatches on grant_type; CORS for browser clients. */
export async function tokenRoute(app: FastifyInstance, options: TokenRouteOptions): Promise<void> {
  const { clients, grants } = options;
  useOAuthFormBodies(app, {
    realm: options.realm,
    storeOutage: 'server_error',
    onErrorAnswer: (error) => options.events.emit({ event: 'token.failed', error: error.error }),
  });

  answerPreflights(app, options.path, clients);

  app.post(options.path, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    // The client first, so that every later error reaches a browser client that allows this origin.
    const client = await authenticateClient(presentedClientCredentials(request.headers.authorization, body, query), options.directory);
    allowClientOrigin(request, reply, client);
    const grant = grants.get(body.require('grant_type'));
    if (!grant) throw new UnsupportedGrantType('the grant_type is not supported by this authorization server');
    if (!client.grantTypes.has(grant.grantType)) {
      throw new UnauthorizedClient(`this client is not registered for grant_type ${grant.grantType}`);
    }
    return sendOAuthJson(reply, 200, await grant.handle({ client, params: body, clientAddress: request.ip }));
  });
}

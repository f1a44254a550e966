import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ClientRegistry } from '../clients/registry.js';
import { InvalidClient, StoreUnavailableError, TemporarilyUnavailable } from '../errors.js';
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

/** Long enough for the Redis client to reconnect (it retries at least every 2 s), short enough to retry soon. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * RFC 7009 §2.2.1: "If the server responds with HTTP status code 503, the client must
 * assume the token still exists and may retry after a reasonable delay. The server may
 * include a "Retry-After" header". Introspection answers the same way, so a resource
 * server never mistakes an outage for an inactive token, nor for a bug (500).
 */
async function unlessStoreDown<T>(request: FastifyRequest, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err;
    request.log.error({ err: { type: err.name, message: err.message } }, 'store unavailable: answered 503');
    throw new TemporarilyUnavailable(`the token store is unavailable: retry after ${STORE_RETRY_AFTER_SECONDS} seconds`, STORE_RETRY_AFTER_SECONDS);
  }
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
    await unlessStoreDown(request, revokeToken(body.require('token'), client, services));
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
    return sendOAuthJson(reply, 200, await unlessStoreDown(request, introspectToken(body.require('token'), client, services)));
  });
}

import type { FastifyInstance } from 'fastify';
import { authenticatedClient, type ClientAuthentication } from '../http/client-auth.js';
import { formRequest, useOAuthFormBodies } from '../http/form-body.js';
import { sendOAuthJson } from '../http/oauth-reply.js';
import { type IntrospectionDependencies, introspectToken } from '../tokens/introspection.js';

export interface IntrospectionRouteOptions {
  readonly path: string;
  readonly realm: string;
  /** Every client (the file's, registered ones, metadata documents) and how each proves who it is. */
  readonly authentication: ClientAuthentication;
  readonly introspection: IntrospectionDependencies;
}

/** POST /oauth2/introspect (RFC 7662). */
export async function introspectionRoute(app: FastifyInstance, options: IntrospectionRouteOptions): Promise<void> {
  const { introspection } = options;
  useOAuthFormBodies(app, { realm: options.realm, storeOutage: 'temporarily_unavailable' });

  // RFC 7662 §2.1: "the endpoint MUST also require some form of authorization"; here
  // the caller authenticates as a confidential client.
  app.post(options.path, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    const client = await authenticatedClient(request, { body, query }, options.authentication, { confidentialOnly: true });
    return sendOAuthJson(reply, 200, await introspectToken(body.require('token'), client, introspection));
  });
}

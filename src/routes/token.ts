import type { FastifyInstance } from 'fastify';
import type { ClientRegistry } from '../clients/registry.js';
import { InvalidRequest, UnauthorizedClient, UnsupportedGrantType } from '../errors.js';
import type { Grant, GrantServices } from '../grants/types.js';
import { authenticateClient, presentedClientCredentials } from '../http/client-auth.js';
import { FORM_CONTENT_TYPE, FormParams } from '../http/form.js';
import { sendOAuthError, sendOAuthJson, toOAuthError } from '../http/oauth-reply.js';

export interface TokenRouteOptions {
  readonly path: string;
  readonly realm: string;
  readonly clients: ClientRegistry;
  readonly grants: ReadonlyMap<string, Grant>;
  readonly services: GrantServices;
}

const BODY_LIMIT = 64 * 1024;

/** Registers parsers and an error handler that answer in RFC 6749 JSON, for back-channel endpoints. */
export function useOAuthFormBodies(scope: FastifyInstance, realm: string): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, FormParams.parse(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  scope.addContentTypeParser('*', (_request, _payload, done) => {
    done(new InvalidRequest('unsupported content type: use application/x-www-form-urlencoded'), undefined);
  });
  scope.setErrorHandler((error, request, reply) => sendOAuthError(reply, toOAuthError(error, request), realm));
}

/** The parameters of a back-channel POST: the form body, and the query string kept apart. */
export function formRequest(body: unknown, url: string): { body: FormParams; query: FormParams } {
  // RFC 6749 §3.2: "The client MUST use the HTTP "POST" method when making access token requests."
  if (!(body instanceof FormParams)) throw new InvalidRequest('the request body must be application/x-www-form-urlencoded');
  const queryStart = url.indexOf('?');
  return { body, query: queryStart === -1 ? FormParams.empty() : FormParams.parse(url.slice(queryStart + 1)) };
}

/** POST /oauth2/token (RFC 6749 §3.2): authenticates the client, then dispatches on grant_type. */
export async function tokenRoute(app: FastifyInstance, options: TokenRouteOptions): Promise<void> {
  const { clients, grants, services } = options;
  useOAuthFormBodies(app, options.realm);

  app.post(options.path, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    const grantType = body.require('grant_type');
    const grant = grants.get(grantType);
    if (!grant) throw new UnsupportedGrantType('the grant_type is not supported by this authorization server');

    const client = authenticateClient(presentedClientCredentials(request.headers.authorization, body, query), clients);
    if (!client.grantTypes.has(grant.grantType)) {
      throw new UnauthorizedClient(`this client is not registered for grant_type ${grant.grantType}`);
    }
    return sendOAuthJson(reply, 200, await grant.handle({ client, params: body, clientAddress: request.ip }, services));
  });
}

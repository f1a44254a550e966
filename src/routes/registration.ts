import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InitialAccessTokens } from '../clients/initial-access-tokens.js';
import type { Registration, ClientRegistrations } from '../clients/registrations.js';
import { InvalidRequest, InvalidToken } from '../errors/index.js';
import { bearerChallenge, bearerToken } from '../http/bearer.js';
import { PREFLIGHT_MAX_AGE_SECONDS } from '../http/cors.js';
import { sendOAuthError, sendOAuthJson, toOAuthError } from '../http/oauth-reply.js';

export interface RegistrationRouteOptions {
  /** The client registration endpoint, `<issuer>/oauth2/register`; each client's configuration endpoint is below it. */
  readonly path: string;
  readonly realm: string;
  readonly registrations: ClientRegistrations;
  /** DYNAMIC_CLIENT_REGISTRATION=token: the initial access tokens; undefined: open registration. */
  readonly initialAccessTokens: InitialAccessTokens | undefined;
}

/** Client metadata is a few hundred bytes; a registration body is small or refused. */
export const REGISTRATION_BODY_LIMIT_BYTES = 16 * 1024;
const JSON_CONTENT_TYPE = 'application/json';

function registrationLog(registration: Registration): Record<string, unknown> {
  const { metadata } = registration;
  // Never a secret or a token: the id and what an operator reviews.
  return {
    client_id: registration.clientId,
    client_name: metadata.client_name,
    redirect_uris: metadata.redirect_uris,
    grant_types: metadata.grant_types,
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
    software_id: metadata.software_id,
  };
}

function requiredToken(request: FastifyRequest): string {
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) throw new InvalidToken('a registration access token is required');
  return token;
}

/**
 * POST /oauth2/register (RFC 7591 §3) and the client configuration endpoint
 * GET|PUT|DELETE /oauth2/register/<client_id> (RFC 7592 §2). JSON in and out; errors are
 * RFC 7591 §3.2.2 JSON with `Cache-Control: no-store`. Readable from any web origin
 * (`Access-Control-Allow-Origin: *`, never with credentials): browser-based MCP clients
 * register with `fetch`, and a page gains nothing a server could not do.
 */
export async function registrationRoute(app: FastifyInstance, options: RegistrationRouteOptions): Promise<void> {
  const { registrations, realm } = options;
  const configurationPath = `${options.path}/:clientId`;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    JSON_CONTENT_TYPE,
    { parseAs: 'string', bodyLimit: REGISTRATION_BODY_LIMIT_BYTES },
    app.getDefaultJsonParser('error', 'error'),
  );
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new InvalidRequest('unsupported content type: send the client metadata as application/json'), undefined);
  });
  app.setErrorHandler((error, request, reply) => {
    const oauthError = toOAuthError(error, request, 'temporarily_unavailable');
    if (oauthError instanceof InvalidToken) bearerChallenge(reply, realm, oauthError, Boolean(request.headers.authorization));
    return sendOAuthError(reply, oauthError, realm);
  });
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', 'WWW-Authenticate, Retry-After');
  });

  const preflight = (methods: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined) {
      reply
        .header('access-control-allow-methods', methods)
        .header('access-control-allow-headers', 'Content-Type, Authorization')
        .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    return reply.code(204).header('allow', `OPTIONS, ${methods}`).send();
  };
  app.options(options.path, preflight('POST'));
  app.options(configurationPath, preflight('GET, PUT, DELETE'));

  app.post(options.path, async (request, reply) => {
    // RFC 7591 §3: with an initial access token required, it comes as a bearer token (RFC 6750).
    options.initialAccessTokens?.verify(bearerToken(request.headers.authorization));
    const registration = await registrations.register(request.body, request.ip);
    request.log.info(registrationLog(registration), 'client registered');
    // RFC 7591 §3.2.1: "The server responds with an HTTP 201 Created status code".
    return sendOAuthJson(reply, 201, registration.information);
  });

  app.get<{ Params: { clientId: string } }>(configurationPath, async (request, reply) => {
    const registration = await registrations.read(request.params.clientId, requiredToken(request));
    return sendOAuthJson(reply, 200, registration.information);
  });

  app.put<{ Params: { clientId: string } }>(configurationPath, async (request, reply) => {
    const registration = await registrations.update(request.params.clientId, requiredToken(request), request.body);
    request.log.info(registrationLog(registration), 'client registration updated');
    return sendOAuthJson(reply, 200, registration.information);
  });

  app.delete<{ Params: { clientId: string } }>(configurationPath, async (request, reply) => {
    await registrations.delete(request.params.clientId, requiredToken(request));
    request.log.info({ client_id: request.params.clientId }, 'client registration deleted');
    // RFC 7592 §2.3: "the authorization server responds with an HTTP 204 No Content message".
    return reply.code(204).header('cache-control', 'no-store').header('pragma', 'no-cache').send();
  });
}

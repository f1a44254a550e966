import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DeviceVerificationRefused } from '../../authorize/device-request.js';
import { nowSeconds } from '../../clock.js';
import { OAuthError, StoreUnavailableError } from '../../errors/index.js';
import { UpstreamCallbackRefused, UpstreamUnavailable } from '../../identity/sign-ins.js';
import { queryParametersOf } from '../../oauth/form-params.js';
import { type ErrorPageContent, errorPage } from '../../pages/authorization.js';
import { sendPage } from '../../pages/html.js';
import type { ErrorKind } from '../../pages/messages/index.js';
import { viewOf } from './browser.js';
import type { AuthorizeRouteOptions } from './options.js';
import { sendErrorToClient } from './response.js';

/** The client_id a failed request named: in the query, the form, or the signed interaction a login or consent form carries. */
function clientIdOf(endpoint: AuthorizeRouteOptions, request: FastifyRequest): string | undefined {
  const fromQuery = queryParametersOf(request.url).find(([name]) => name === 'client_id')?.[1];
  if (fromQuery) return fromQuery;
  if (!Array.isArray(request.body)) return undefined;
  const fields = request.body as [string, string][];
  const direct = fields.find(([name]) => name === 'client_id')?.[1];
  if (direct) return direct;
  const interaction = fields.find(([name]) => name === 'interaction')?.[1];
  const carried = endpoint.pipeline.signer.verify<[string, string][]>('interaction', interaction, nowSeconds(endpoint.pipeline.clock));
  return Array.isArray(carried) ? carried.find((entry) => Array.isArray(entry) && entry[0] === 'client_id')?.[1] : undefined;
}

/**
 * The way back from an error page: the client's home page (client_uri), only for a client
 * of CLIENTS_FILE, whose URLs the operator reviewed. A self-registered client's URL is its
 * own claim, and the request may be an attack on it: the page then says to close the window.
 */
function homeOf(endpoint: AuthorizeRouteOptions, request: FastifyRequest): ErrorPageContent['home'] {
  const clientId = clientIdOf(endpoint, request);
  const client = clientId === undefined ? undefined : endpoint.reviewedClients.get(clientId);
  return client?.clientUri === undefined ? undefined : { name: client.clientName ?? client.clientId, uri: client.clientUri };
}

export function sendErrorPage(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  statusCode: number,
  content: Omit<ErrorPageContent, 'reference' | 'home'>,
): FastifyReply {
  const page = errorPage(viewOf(endpoint, request), { ...content, reference: request.id, home: homeOf(endpoint, request) });
  return sendPage(reply, statusCode, page);
}

/** The page of an error the user made or met: a form refused, a device verification that cannot go on, an invalid request. */
function errorKindOf(error: OAuthError): ErrorKind {
  if (error.statusCode === 403) return 'form_refused';
  return error instanceof DeviceVerificationRefused ? 'device_verification' : 'invalid_authorization_request';
}

/** The error code an authorization error is counted under. */
function errorCodeOf(error: unknown): string {
  if (error instanceof OAuthError) return error.error;
  if (error instanceof StoreUnavailableError) return 'temporarily_unavailable';
  const status = (error as Partial<FastifyError>).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? 'invalid_request' : 'server_error';
}

/**
 * The one error path of the authorization endpoint. An OAuthError that carries
 * `redirectTo` goes back to the client (RFC 6749 §4.1.2.1, §4.2.2.1); anything else is a
 * page for the user, never JSON, never a stack trace: the error code and the request id,
 * and a way back.
 */
export function answerError(endpoint: AuthorizeRouteOptions, error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  endpoint.pipeline.responses.events.emit({ event: 'authorization.failed', error: errorCodeOf(error) });
  if (error instanceof OAuthError) {
    if (error.cause instanceof Error)
      request.log.error({ err: { type: error.cause.name, message: error.cause.message } }, `${error.error} sent to the client`);
    if (error.redirectTo)
      return sendErrorToClient(reply, error.redirectTo, error, {
        issuer: endpoint.issuer,
        afterPost: request.method === 'POST',
        view: viewOf(endpoint, request),
      });
    // Sign-in through an upstream provider: a callback nobody can be told about, a provider that cannot be reached.
    if (error instanceof UpstreamCallbackRefused || error instanceof UpstreamUnavailable) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      return sendErrorPage(endpoint, request, reply, error.statusCode, {
        kind: error instanceof UpstreamUnavailable ? 'upstream_unavailable' : 'upstream_callback',
        error: error.error,
        description: error.description,
      });
    }
    if (error.statusCode < 500)
      return sendErrorPage(endpoint, request, reply, error.statusCode, {
        kind: errorKindOf(error),
        error: error.error,
        description: error.description,
      });
  }
  if (error instanceof StoreUnavailableError) {
    request.log.error({ err: { type: error.name, message: error.message } }, 'store unavailable on the authorization endpoint');
    return sendErrorPage(endpoint, request, reply, 503, { kind: 'temporarily_unavailable', error: 'temporarily_unavailable' });
  }
  const status = (error as Partial<FastifyError>).statusCode;
  if (!(error instanceof OAuthError) && typeof status === 'number' && status >= 400 && status < 500) {
    return sendErrorPage(endpoint, request, reply, 400, { kind: 'invalid_request', error: 'invalid_request' });
  }
  request.log.error({ err: error }, 'unexpected error on the authorization endpoint');
  return sendErrorPage(endpoint, request, reply, 500, { kind: 'server_error', error: 'server_error' });
}

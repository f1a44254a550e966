import cookie from '@fastify/cookie';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Parameters } from '../../authorize/request.js';
import { nowSeconds } from '../../clock.js';
import { isSignInMarkFor, SIGN_IN_MARK_PARAMETER } from '../../session/sign-in-mark.js';
import { InvalidRequest, OAuthError, StoreUnavailableError } from '../../errors.js';
import { BODY_LIMIT_BYTES, FORM_CONTENT_TYPE } from '../../http/form-body.js';
import { errorPage } from '../../pages/authorization.js';
import { sendPage } from '../../pages/html.js';
import { consentRoute } from './consent.js';
import { cookieJar } from './cookies.js';
import { validate } from './interaction.js';
import { loginRoute } from './login.js';
import { logoutRoutes } from './logout.js';
import type { AuthorizeRouteOptions } from './options.js';
import { proceed } from './proceed.js';
import { sendErrorToClient } from './response.js';

export type { AuthorizeRouteOptions } from './options.js';

/** The parameters of a GET query or a form body, in order, repeats kept (the validator judges them). */
function entriesOf(encoded: string): Parameters {
  return [...new URLSearchParams(encoded)];
}

function queryOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
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
 * page for the user, never JSON, never a stack trace.
 */
function answerError(endpoint: AuthorizeRouteOptions, error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  endpoint.responses.events.emit({ event: 'authorization.failed', error: errorCodeOf(error) });
  if (error instanceof OAuthError) {
    if (error.cause instanceof Error)
      request.log.error({ err: { type: error.cause.name, message: error.cause.message } }, `${error.error} sent to the client`);
    if (error.redirectTo)
      return sendErrorToClient(reply, error.redirectTo, error, { issuer: endpoint.issuer, afterPost: request.method === 'POST' });
    if (error.statusCode < 500)
      return sendPage(
        reply,
        error.statusCode,
        errorPage(error.statusCode === 403 ? 'Form refused' : 'Invalid authorization request', error.description),
      );
  }
  if (error instanceof StoreUnavailableError) {
    request.log.error({ err: { type: error.name, message: error.message } }, 'store unavailable on the authorization endpoint');
    return sendPage(reply, 503, errorPage('Temporarily unavailable', 'please try again in a moment'));
  }
  const status = (error as Partial<FastifyError>).statusCode;
  if (!(error instanceof OAuthError) && typeof status === 'number' && status >= 400 && status < 500) {
    return sendPage(reply, 400, errorPage('Invalid authorization request', 'the request could not be read'));
  }
  request.log.error({ err: error }, 'unexpected error on the authorization endpoint');
  return sendPage(reply, 500, errorPage('Something went wrong', 'please try again later'));
}

/**
 * The authorization endpoint (RFC 6749 §3.1) and its login and consent pages. Everything
 * here answers a browser.
 */
export async function authorizeRoutes(app: FastifyInstance, endpoint: AuthorizeRouteOptions): Promise<void> {
  await app.register(cookie);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    done(null, entriesOf(body as string));
  });
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new InvalidRequest('forms must be sent as application/x-www-form-urlencoded'), undefined);
  });
  app.setErrorHandler((error, request, reply) => answerError(endpoint, error, request, reply));

  // RFC 6749 §3.1: "The authorization server MUST support the use of the HTTP "GET"
  // method [...] and MAY support the use of the "POST" method as well."
  app.route({
    method: ['GET', 'POST'],
    url: endpoint.paths.authorize,
    handler: async (request, reply) => {
      let parameters: Parameters;
      if (request.method === 'POST') {
        if (!Array.isArray(request.body)) throw new InvalidRequest('forms must be sent as application/x-www-form-urlencoded');
        parameters = request.body as Parameters;
      } else {
        parameters = entriesOf(queryOf(request.url));
      }
      const mark = parameters.find(([name]) => name === SIGN_IN_MARK_PARAMETER)?.[1];
      const authorization = await validate(
        endpoint,
        parameters.filter(([name]) => name !== SIGN_IN_MARK_PARAMETER),
      );
      const user = endpoint.session.current(cookieJar(request, reply));
      const signedInForThisRequest = isSignInMarkFor(endpoint.signer, mark, user, authorization.parameters, nowSeconds(endpoint.clock));
      return proceed(endpoint, request, reply, authorization, { user, signedInForThisRequest });
    },
  });

  await loginRoute(app, endpoint);
  await consentRoute(app, endpoint);
  await logoutRoutes(app, endpoint);
}

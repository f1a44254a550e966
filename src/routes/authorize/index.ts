import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { Parameters } from '../../authorize/request.js';
import { InvalidRequest, OAuthError } from '../../errors.js';
import { FORM_CONTENT_TYPE } from '../../http/form.js';
import { errorPage } from '../../pages/authorization.js';
import { sendPage } from '../../pages/html.js';
import { sendUnlessValid, showConsent, showLogin, validate, type AuthorizeContext } from './context.js';
import { consentRoute } from './consent.js';
import { loginRoute } from './login.js';

const BODY_LIMIT = 64 * 1024;

/** The parameters of a GET query or a form body, in order, repeats kept (the validator judges them). */
function entriesOf(encoded: string): Parameters {
  return [...new URLSearchParams(encoded)];
}

function queryOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
}

/**
 * The authorization endpoint (RFC 6749 §3.1) and its login and consent pages. Everything
 * here answers a browser: problems become HTML pages, never JSON, never a stack trace.
 */
export async function authorizeRoutes(app: FastifyInstance, ctx: AuthorizeContext): Promise<void> {
  await app.register(cookie);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    done(null, entriesOf(body as string));
  });
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new InvalidRequest('forms must be sent as application/x-www-form-urlencoded'), undefined);
  });
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof OAuthError && error.statusCode < 500) {
      return sendPage(reply, error.statusCode, errorPage('Invalid request', error.description));
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendPage(reply, 400, errorPage('Invalid request', 'the request could not be read'));
    }
    request.log.error({ err: error }, 'unexpected error on the authorization endpoint');
    return sendPage(reply, 500, errorPage('Something went wrong', 'please try again later'));
  });

  // RFC 6749 §3.1: "The authorization server MUST support the use of the HTTP "GET"
  // method [...] and MAY support the use of the "POST" method as well."
  app.route({
    method: ['GET', 'POST'],
    url: ctx.paths.authorize,
    handler: async (request, reply) => {
      const afterPost = request.method === 'POST';
      let parameters: Parameters;
      if (afterPost) {
        if (!Array.isArray(request.body)) throw new InvalidRequest('forms must be sent as application/x-www-form-urlencoded');
        parameters = request.body as Parameters;
      } else {
        parameters = entriesOf(queryOf(request.url));
      }
      const authorization = sendUnlessValid(ctx, reply, validate(ctx, parameters), afterPost);
      if (!authorization) return reply;
      const user = ctx.session.current(request);
      return user ? showConsent(ctx, request, reply, authorization, user.sub) : showLogin(ctx, request, reply, authorization);
    },
  });

  await loginRoute(app, ctx);
  await consentRoute(app, ctx);
}

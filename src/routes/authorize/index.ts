import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { Parameters } from '../../authorize/request.js';
import { nowSeconds } from '../../clock.js';
import { InvalidRequest } from '../../errors.js';
import { isSignInMarkFor, SIGN_IN_MARK_PARAMETER } from '../../session/sign-in-mark.js';
import { BODY_LIMIT_BYTES, FORM_CONTENT_TYPE } from '../../http/form-body.js';
import { consentRoute } from './consent.js';
import { cookieJar } from './cookies.js';
import { answerError } from './error-answer.js';
import { validate } from './interaction.js';
import { loginRoute } from './login.js';
import { logoutRoutes } from './logout.js';
import type { AuthorizeRouteOptions } from './options.js';
import { proceed } from './proceed.js';

export type { AuthorizeRouteOptions } from './options.js';

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

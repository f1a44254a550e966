import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { authorize, decide, signIn } from '../../authorize/pipeline.js';
import { useBrowserFormBodies } from '../../http/form-body.js';
import { FormParams, queryParametersOf } from '../../oauth/form-params.js';
import { answer } from './answer.js';
import { cookieJar, postedForm } from './browser.js';
import { answerError } from './error-answer.js';
import { logoutRoutes } from './logout.js';
import { upstreamRoutes } from './upstream.js';
import { deviceRoutes } from '../device/index.js';
import type { AuthorizeRouteOptions } from './options.js';

export type { AuthorizeRouteOptions } from './options.js';

/**
 * The authorization endpoint (RFC 6749 §3.1), its login and consent pages, sign-out, and the
 * device flow's verification page (/device, RFC 8628 §3.3), which shares them.
 * Everything here answers a browser. Each route hands what the browser sent to a step of
 * the pipeline (src/authorize/pipeline.ts) and renders what it returns (answer.ts).
 */
export async function authorizeRoutes(app: FastifyInstance, endpoint: AuthorizeRouteOptions): Promise<void> {
  await app.register(cookie);
  useBrowserFormBodies(app);
  app.setErrorHandler((error, request, reply) => answerError(endpoint, error, request, reply));
  const { pipeline } = endpoint;

  // RFC 6749 §3.1: "The authorization server MUST support the use of the HTTP "GET"
  // method [...] and MAY support the use of the "POST" method as well."
  app.route({
    method: ['GET', 'POST'],
    url: endpoint.paths.authorize,
    handler: async (request, reply) => {
      const received = request.method === 'POST' ? postedForm(request) : queryParametersOf(request.url);
      return answer(endpoint, request, reply, await authorize(received, cookieJar(request, reply), pipeline));
    },
  });

  // The login form, through the sign-in limits shared with the password grant.
  app.post(endpoint.paths.login, async (request, reply) => {
    const form = FormParams.fromEntries(postedForm(request));
    return answer(endpoint, request, reply, await signIn(form, cookieJar(request, reply), request.ip, pipeline));
  });

  // The consent form: Allow or Deny.
  app.post(endpoint.paths.consent, async (request, reply) => {
    const form = FormParams.fromEntries(postedForm(request));
    return answer(endpoint, request, reply, await decide(form, cookieJar(request, reply), pipeline));
  });

  await upstreamRoutes(app, endpoint);
  await logoutRoutes(app, endpoint);
  await deviceRoutes(app, endpoint);
}

import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequest } from '../../errors/index.js';
import type { Parameters } from '../../oauth/form-params.js';
import type { PageView } from '../../pages/view.js';
import type { CookieJar } from '../../session/browser-session.js';
import type { AuthorizeRouteOptions } from './options.js';

/** The browser's cookies for the session module, which knows nothing of Fastify. */
export function cookieJar(request: FastifyRequest, reply: FastifyReply): CookieJar {
  return {
    get: (name) => request.cookies[name],
    set: (name, value, options) => void reply.setCookie(name, value, options),
  };
}

/** The form a browser posted, in order, repeats kept (the steps judge them). */
export function postedForm(request: FastifyRequest): Parameters {
  if (!Array.isArray(request.body)) throw new InvalidRequest('forms must be sent as application/x-www-form-urlencoded');
  return request.body as Parameters;
}

/** The pages in the language the browser prefers (Accept-Language). */
export function viewOf(endpoint: Pick<AuthorizeRouteOptions, 'pages'>, request: FastifyRequest): PageView {
  return endpoint.pages.viewFor(request.headers['accept-language']);
}

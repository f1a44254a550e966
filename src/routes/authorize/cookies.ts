import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CookieJar } from '../../session/browser-session.js';

/** The browser's cookies for the session module, which knows nothing of Fastify. */
export function cookieJar(request: FastifyRequest, reply: FastifyReply): CookieJar {
  return {
    get: (name) => request.cookies[name],
    set: (name, value, options) => void reply.setCookie(name, value, options),
  };
}

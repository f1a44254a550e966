import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { type AdminCallerDependencies, adminCaller, type PresentedAdminToken } from '../../admin/callers.js';
import { type AdminActor, recordAdminChange } from '../../admin/audit.js';
import { parseIfMatch } from '../../admin/etags.js';
import { AdminProblem, validationProblem } from '../../admin/problems.js';
import type { AdminAnswer, AdminRoute } from '../../admin/routes.js';
import type { SecurityEvents } from '../../events/types.js';
import type { AdminScope } from '../../oauth/admin-scopes.js';
import { pathOf } from '../../http/unrouted.js';

/**
 * Serves one declared admin route (src/admin/routes.ts): the caller's token and scope
 * first (nothing about the request is told to a caller without one), then the path, query
 * and body validated by the route's zod schemas, If-Match parsed, the handler, and its
 * answer as JSON with `Cache-Control: no-store`.
 */

export interface FrameDependencies {
  readonly callers: AdminCallerDependencies;
  readonly events: SecurityEvents;
  /** The origin of the issuer: with the request's path, the URI a DPoP proof's `htu` names. */
  readonly origin: string;
}

/** What JSON bodies parse to when their media type is not one a route takes: kept to answer 415 where a body is expected. */
export const UNSUPPORTED_BODY = Symbol('unsupported body');

const CREDENTIALS = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** RFC 6750 §2.1 or RFC 9449 §7.1; a header of any other form is no token at all. */
function presentedToken(request: FastifyRequest, origin: string): PresentedAdminToken | undefined {
  const match = CREDENTIALS.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  const token = match[2] as string;
  if ((match[1] as string).toLowerCase() !== 'dpop') return { token };
  return { token, dpop: { proof: request.headers.dpop, method: request.method, url: `${origin}${pathOf(request.url)}` } };
}

function parsed<S extends z.ZodType>(schema: S, value: unknown, detail: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationProblem(result.error.issues, detail);
  return result.data;
}

function mediaTypeOf(request: FastifyRequest): string | undefined {
  return request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
}

function body(route: AdminRoute, request: FastifyRequest): unknown {
  if (!route.body) return undefined;
  const type = mediaTypeOf(request);
  if (type === undefined && request.body === undefined)
    throw new AdminProblem('validation', 'this request needs a JSON body', {
      errors: [{ field: '(body)', problem: 'required' }],
    });
  if (type === undefined || !route.bodyMediaTypes.includes(type as never) || request.body === UNSUPPORTED_BODY)
    throw new AdminProblem('unsupported-media-type', `send the body as ${route.bodyMediaTypes.join(' or ')}`);
  return parsed(route.body, request.body, 'the body has invalid fields');
}

function send(reply: FastifyReply, answer: AdminAnswer): FastifyReply {
  reply.code(answer.status).header('cache-control', 'no-store');
  if (answer.etag !== undefined) reply.header('etag', answer.etag);
  if (answer.location !== undefined) reply.header('location', answer.location);
  if (answer.body === undefined) return reply.send();
  // A Buffer: Fastify adds no charset parameter (RFC 8259 §11: none is defined for application/json).
  return reply.header('content-type', 'application/json').send(Buffer.from(JSON.stringify(answer.body)));
}

/** `/clients/{client_id}` → `/clients/:client_id`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An admin route's scope; absent on a public one. */
    readonly adminScope?: AdminScope;
  }
  interface FastifyRequest {
    /** The admin API's caller, once its token was accepted. */
    adminActor?: AdminActor;
  }
}

/**
 * Checks the caller of every admin route before its body is read (onRequest), so a caller
 * without a token learns nothing of the request: not even that its body is too large.
 */
export function authenticateAdminCalls(app: FastifyInstance, deps: FrameDependencies): void {
  app.addHook('onRequest', async (request) => {
    const scope = request.routeOptions.config.adminScope;
    if (scope !== undefined) request.adminActor = await adminCaller(presentedToken(request, deps.origin), scope, deps.callers);
  });
}

/** Registers `route` in the admin scope; `isPublic`: no token needed (the OpenAPI document). */
export function serveAdminRoute(app: FastifyInstance, route: AdminRoute, deps: FrameDependencies, isPublic = false): void {
  app.route({
    method: route.method,
    url: fastifyPath(route.path),
    config: isPublic ? {} : { adminScope: route.scope },
    handler: async (request, reply) => {
      const actor: AdminActor = request.adminActor ?? { client_id: 'anonymous' };
      const params = route.params ? parsed(route.params, request.params, 'the path has invalid parameters') : undefined;
      const query = parsed(route.query, request.query ?? {}, 'the query has invalid parameters');
      const ifMatch = parseIfMatch(request.headers['if-match']);
      const answer = await route.handle({
        params,
        query,
        body: body(route, request),
        actor,
        ifMatch,
        audit: (change) => recordAdminChange(deps.events, { ...change, actor }),
      });
      return send(reply, answer);
    },
  });
}

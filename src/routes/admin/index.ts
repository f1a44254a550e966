import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type OpenApiSettings, openApiDocument } from '../../admin/openapi.js';
import { AdminProblem } from '../../admin/problems.js';
import { adminRoute, type AdminRoute } from '../../admin/routes.js';
import { redactUrl } from '../../http/logging.js';
import { pathOf, RouteMethods } from '../../http/unrouted.js';
import { authenticateAdminCalls, type FrameDependencies, serveAdminRoute, UNSUPPORTED_BODY } from './frame.js';
import { sendProblem, toProblem } from './problem-reply.js';

/**
 * The admin API under `{ISSUER}/admin/v1` (registered with that prefix): a frame for the
 * routes entity plugins declare (src/admin/routes.ts), JSON in and out, every error an
 * RFC 9457 problem (unknown paths and methods, bodies over 64 KiB or not JSON included),
 * and `GET /openapi.json`, the OpenAPI 3.1 document generated from the same declarations.
 */

/** RFC 7396 bodies (application/merge-patch+json) are JSON too. */
const JSON_TYPES = ['application/json', 'application/merge-patch+json'];

/** The largest body the admin API reads. */
export const ADMIN_BODY_LIMIT_BYTES = 64 * 1024;

export interface AdminApiOptions extends FrameDependencies {
  /** Every route of every entity plugin. */
  readonly routes: readonly AdminRoute[];
  readonly openApi: OpenApiSettings;
}

function jsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'string', bodyLimit: ADMIN_BODY_LIMIT_BYTES }, (_request, text, done) => {
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text as string));
    } catch {
      done(new AdminProblem('invalid-json', 'the body is not valid JSON (RFC 8259)'), undefined);
    }
  });
  // Read by no route: a route that expects a body answers 415 (frame.ts).
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, UNSUPPORTED_BODY));
}

/** 404 for a path no admin route serves, 405 with Allow for a method it does not take. */
function unroutedProblems(app: FastifyInstance): void {
  const methods = new RouteMethods();
  app.addHook('onRoute', (route) => methods.record(route.url, route.method));
  app.setNotFoundHandler((request, reply) => {
    const allow = methods.allowFor(pathOf(request.url));
    request.log.info({ method: request.method, url: redactUrl(request.url), allow }, 'admin API: no such route');
    if (allow === undefined) return sendProblem(reply, new AdminProblem('not-found', 'the admin API has no such path'));
    // RFC 9110 §15.5.6: "The origin server MUST generate an Allow header field in a 405 response".
    return sendProblem(reply, new AdminProblem('method-not-allowed', `this path accepts ${allow}`, { allow }));
  });
}

export async function adminApi(app: FastifyInstance, options: AdminApiOptions): Promise<void> {
  jsonBodies(app);
  authenticateAdminCalls(app, options);
  app.setErrorHandler((error, request, reply) => sendProblem(reply, toProblem(error, request)));
  unroutedProblems(app);
  const documentRoute: AdminRoute = adminRoute({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This document: the OpenAPI 3.1 description of the admin API (no token needed)',
    tag: 'meta',
    responses: { 200: { description: 'The OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()) } },
    handle: async () => ({ status: 200, body: (document ??= openApiDocument(options.routes, [documentRoute], options.openApi)) }),
  });
  // Written at its first request, not at start: turning every route's zod schemas into JSON
  // Schema costs 25-45 ms of CPU, which a server that is never asked for it need not pay.
  let document: ReturnType<typeof openApiDocument> | undefined;
  serveAdminRoute(app, documentRoute, options, true);
  for (const route of options.routes) serveAdminRoute(app, route, options);
}

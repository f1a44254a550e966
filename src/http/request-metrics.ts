import type { FastifyInstance } from 'fastify';

/** What records request durations (ServerMetrics). */
export interface RequestObserver {
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void;
}

/** The route label of a request no route matched: never the raw URL, which a client chooses. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every request of `app` (and of every plugin registered after this) from its
 * arrival to its answer, labelled with the route pattern (`/oauth2/register/:clientId`).
 */
export function measureRequestDurations(app: FastifyInstance, observer: RequestObserver): void {
  // A callback hook, not an async one: no promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    observer.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

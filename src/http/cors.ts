import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allowedOrigins, anyClientAllows } from '../clients/origins.js';
import type { Client } from '../clients/registry.js';

/**
 * CORS (Fetch standard, "CORS protocol") for the endpoints a browser application calls
 * with `fetch`. Written here rather than with @fastify/cors: the answer to an actual
 * request depends on the client, known only once the route has authenticated it, after
 * every hook that plugin offers for string bodies; and the plugin registers its preflight
 * route as `OPTIONS *` for the whole router, where the authorization and introspection
 * endpoints must keep refusing OPTIONS. Credentials mode is never allowed: tokens travel
 * in bodies, not cookies.
 */

/** Request headers a client may send: the form, HTTP Basic, and DPoP proofs (RFC 9449). */
const ALLOWED_REQUEST_HEADERS = 'Content-Type, Authorization, DPoP';
/** Response headers a page may read besides the CORS-safelisted ones (the RFC 6749 §5.2 401 challenge, RFC 9449 §8 nonces). */
const EXPOSED_RESPONSE_HEADERS = 'WWW-Authenticate, DPoP-Nonce';
/** How long a browser may cache a preflight: short, so a removed origin stops working soon after a reload. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

interface ClientRegistryView {
  all(): readonly Client[];
}

/** Discovery metadata and the JWKS are public documents: any page may read them. */
export function allowAnyOrigin(reply: FastifyReply): FastifyReply {
  return reply.header('access-control-allow-origin', '*');
}

function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  return typeof origin === 'string' ? origin : undefined;
}

/**
 * Answers OPTIONS on a client endpoint (`Allow: OPTIONS, POST`, 204). A CORS preflight
 * (`Origin` and `Access-Control-Request-Method`) from an origin some client allows gets
 * the CORS headers; any other OPTIONS gets none, so the browser refuses the request. The
 * preflight carries no credentials, so it cannot tell which client will call.
 */
export function answerPreflights(
  scope: FastifyInstance,
  path: string,
  clients: ClientRegistryView,
  methods: readonly string[] = ['POST'],
): void {
  scope.options(path, async (request, reply) => {
    const origin = requestOrigin(request);
    if (origin !== undefined && request.headers['access-control-request-method'] !== undefined && anyClientAllows(clients, origin)) {
      reply
        .header('access-control-allow-origin', origin)
        .header('vary', 'Origin')
        .header('access-control-allow-methods', methods.join(', '))
        .header('access-control-allow-headers', ALLOWED_REQUEST_HEADERS)
        .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    return reply
      .code(204)
      .header('allow', ['OPTIONS', ...methods].join(', '))
      .send();
  });
}

/**
 * Lets the page read this response when the authenticated client allows its origin. Called
 * as soon as the client is known, so the client's later errors (`invalid_grant`, ...) are
 * readable too; a request whose client is not authenticated gets no CORS headers.
 */
export function allowClientOrigin(request: FastifyRequest, reply: FastifyReply, client: Client): void {
  const origin = requestOrigin(request);
  if (origin === undefined || !allowedOrigins(client).has(origin)) return;
  reply
    .header('access-control-allow-origin', origin)
    .header('vary', 'Origin')
    .header('access-control-expose-headers', EXPOSED_RESPONSE_HEADERS);
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorPage } from '../pages/authorization.js';
import { sendPage } from '../pages/html.js';
import type { ErrorKind } from '../pages/messages/index.js';
import type { Pages } from '../pages/view.js';
import { redactUrl } from './logging.js';
import { sendOAuthError, sendOAuthJson, toOAuthError } from './oauth-reply.js';

/**
 * Requests no route answers: an unknown path (404), a known path with another method
 * (405 with Allow), a URL the router cannot decode (400). The answer never echoes the
 * URL, and the log line carries only the masked URL: Fastify's own 404 logs and echoes
 * the raw URL, query secrets included.
 */

export interface EdgeAnswer {
  readonly statusCode: number;
  readonly error: string;
  readonly description: string;
  /** Which error page a browser sees. */
  readonly page: ErrorKind;
}

export interface UnroutedOptions {
  /** Paths whose visitors are browsers (the authorization endpoint's pages): they get HTML. */
  readonly isBrowserPath: (path: string) => boolean;
  /** The pages (layout and languages) browsers get; a listener without browser paths (metrics) has none. */
  readonly pages?: Pages;
}

export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** Sends an answer as an HTML page to browser paths, as RFC 6749-shaped JSON to everything else. */
export function sendEdgeAnswer(request: FastifyRequest, reply: FastifyReply, answer: EdgeAnswer, options: UnroutedOptions): FastifyReply {
  if (options.pages && options.isBrowserPath(pathOf(request.url))) {
    const view = options.pages.viewFor(request.headers['accept-language']);
    // The page's own explanation says "nothing here"; other answers add what they know.
    const description = answer.page === 'not_found' ? undefined : answer.description;
    return sendPage(
      reply,
      answer.statusCode,
      errorPage(view, { kind: answer.page, error: answer.error, description, reference: request.id }),
    );
  }
  return sendOAuthJson(reply, answer.statusCode, { error: answer.error, error_description: answer.description });
}

/**
 * The methods each path answers, collected from the routes as they are registered
 * (HEAD comes with every GET route). A `:param` segment matches any one segment.
 */
export class RouteMethods {
  private readonly byPath = new Map<string, Set<string>>();
  private readonly patterns: { readonly pattern: RegExp; readonly url: string }[] = [];

  record(url: string, method: string | readonly string[]): void {
    const methods = this.byPath.get(url) ?? new Set<string>();
    for (const m of typeof method === 'string' ? [method] : method) methods.add(m.toUpperCase());
    if (!this.byPath.has(url) && url.includes('/:')) {
      const segments = url
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      this.patterns.push({ pattern: new RegExp(`^${segments.join('/')}$`), url });
    }
    this.byPath.set(url, methods);
  }

  /** The Allow header value for a path, or undefined for a path no route serves. */
  allowFor(path: string): string | undefined {
    const url = this.byPath.has(path) ? path : this.patterns.find(({ pattern }) => pattern.test(path))?.url;
    const methods = url === undefined ? undefined : this.byPath.get(url);
    return methods ? [...methods].sort().join(', ') : undefined;
  }
}

export const BAD_URL: EdgeAnswer = {
  statusCode: 400,
  error: 'invalid_request',
  description: 'the request URL is malformed',
  page: 'invalid_request',
};

const NOT_FOUND: EdgeAnswer = {
  statusCode: 404,
  error: 'not_found',
  description: 'there is no endpoint at this path',
  page: 'not_found',
};

/**
 * Installs the route bookkeeping, the 404/405 handler and the root error handler (health,
 * discovery and the 404 handler itself: Fastify rejects a malformed Content-Type before
 * any handler runs). A body sent to these is never read, whatever its type.
 */
export function useUnroutedAnswers(app: FastifyInstance, options: UnroutedOptions & { readonly realm: string }): RouteMethods {
  app.setErrorHandler((error, request, reply) => {
    const oauthError = toOAuthError(error, request);
    if (!options.isBrowserPath(pathOf(request.url))) return sendOAuthError(reply, oauthError, options.realm);
    return sendEdgeAnswer(
      request,
      reply,
      { statusCode: oauthError.statusCode, error: oauthError.error, description: oauthError.description, page: 'invalid_request' },
      options,
    );
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  const routes = new RouteMethods();
  app.addHook('onRoute', (route) => routes.record(route.url, route.method));

  app.setNotFoundHandler((request, reply) => {
    const allow = routes.allowFor(pathOf(request.url));
    const url = redactUrl(request.url);
    if (allow === undefined) {
      request.log.info({ method: request.method, url }, 'route not found');
      return sendEdgeAnswer(request, reply, NOT_FOUND, options);
    }
    // RFC 9110 §15.5.6: "The origin server MUST generate an Allow header field in a
    // 405 response containing a list of the target resource's currently supported methods."
    request.log.info({ method: request.method, url, allow }, 'method not allowed');
    reply.header('allow', allow);
    return sendEdgeAnswer(
      request,
      reply,
      {
        statusCode: 405,
        error: 'invalid_request',
        description: `method not allowed: this endpoint accepts ${allow}`,
        page: 'method_not_allowed',
      },
      options,
    );
  });
  return routes;
}

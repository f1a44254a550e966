import type { FastifyInstance } from 'fastify';
import { InvalidRequest, type OAuthError } from '../errors/index.js';
import { FormParams, parametersOf, queryParametersOf } from '../oauth/form-params.js';
import { type StoreOutageAnswer, sendOAuthError, toOAuthError } from './oauth-reply.js';

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** The largest request body any endpoint reads: forms of a few parameters need far less. */
export const BODY_LIMIT_BYTES = 64 * 1024;

export interface BackChannelOptions {
  /** The realm of `WWW-Authenticate` on `invalid_client`. */
  readonly realm: string;
  readonly storeOutage: StoreOutageAnswer;
  /** Told the error of every error answer (the token endpoint counts them). */
  readonly onErrorAnswer?: (error: OAuthError) => void;
}

/**
 * Sets up a back-channel endpoint (token, revocation, introspection): bodies are
 * `application/x-www-form-urlencoded` only, parsed by the RFC 6749 §3.1 rules, and every
 * error is answered in RFC 6749 §5.2 JSON.
 */
export function useOAuthFormBodies(scope: FastifyInstance, options: BackChannelOptions): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    try {
      done(null, FormParams.parse(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  scope.addContentTypeParser('*', (_request, _payload, done) => {
    // A microtask later: when what follows the headers is not valid HTTP/1.1 (a chunked body
    // with a bad chunk size), Node's parser, still reading those bytes, answers first, with the
    // parser's error (src/http/client-errors.ts), as it does for every other request.
    queueMicrotask(() => done(new InvalidRequest('unsupported content type: use application/x-www-form-urlencoded'), undefined));
  });
  scope.setErrorHandler((error, request, reply) => {
    const answer = toOAuthError(error, request, options.storeOutage);
    options.onErrorAnswer?.(answer);
    return sendOAuthError(reply, answer, options.realm);
  });
}

/**
 * Sets up a scope of browser pages (the authorization endpoint's, the console's): forms are
 * `application/x-www-form-urlencoded`, read as their parameters in order with repeats kept
 * (each step judges them); any other body is `invalid_request`.
 */
export function useBrowserFormBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    done(null, parametersOf(body as string));
  });
  scope.addContentTypeParser('*', (_request, _payload, done) => {
    // A microtask later, as for the back channel: an HTTP/1.1 parse error answers first.
    queueMicrotask(() => done(new InvalidRequest('forms must be sent as application/x-www-form-urlencoded'), undefined));
  });
}

/** The parameters of a back-channel POST: the form body, and the query string kept apart. */
export function formRequest(body: unknown, url: string): { body: FormParams; query: FormParams } {
  // RFC 6749 §3.2: "The client MUST use the HTTP "POST" method when making access token requests."
  if (!(body instanceof FormParams)) throw new InvalidRequest('the request body must be application/x-www-form-urlencoded');
  return { body, query: FormParams.fromEntries(queryParametersOf(url)) };
}

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  InvalidClient,
  InvalidRequest,
  OAuthError,
  ServerError,
  StoreUnavailableError,
  TemporarilyUnavailable,
  UseDpopNonce,
} from '../errors/index.js';

/**
 * RFC 6749 §5.1: "The authorization server MUST include the HTTP "Cache-Control"
 * response header field [RFC2616] with a value of "no-store" in any response
 * containing tokens, credentials, or other sensitive information, as well as the
 * "Pragma" response header field [RFC2616] with a value of "no-cache"."
 * Applied to every back-channel response, success or error.
 */
export function sendOAuthJson(reply: FastifyReply, statusCode: number, body: unknown): FastifyReply {
  return sendOAuthJsonText(reply, statusCode, JSON.stringify(body));
}

/** sendOAuthJson for a body already serialized. */
export function sendOAuthJsonText(reply: FastifyReply, statusCode: number, json: string): FastifyReply {
  return reply
    .code(statusCode)
    .header('content-type', 'application/json;charset=UTF-8')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send(json);
}

/** Client errors Fastify raises before our handlers run, with a fixed, safe description. */
const FRAMEWORK_ERRORS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported content type: use application/x-www-form-urlencoded',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'request body does not match its Content-Length',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'request body is empty',
  FST_ERR_CTP_INVALID_JSON_BODY: 'request body is malformed',
};

/** Long enough for the Redis client to reconnect (it retries at least every 2 s), short enough to retry soon. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * What a store outage becomes at an endpoint. The token endpoint fails closed with
 * `server_error` (RFC 6749 §5.2 has no code for "try later"). Revocation and
 * introspection answer 503: RFC 7009 §2.2.1 "If the server responds with HTTP status
 * code 503, the client must assume the token still exists and may retry after a
 * reasonable delay. The server may include a "Retry-After" header", so a resource server
 * never mistakes an outage for an inactive token. The authorization endpoint sends
 * `temporarily_unavailable` to the client (RFC 6749 §4.1.2.1).
 */
export type StoreOutageAnswer = 'server_error' | 'temporarily_unavailable';

export function storeOutageError(answer: StoreOutageAnswer, cause: StoreUnavailableError): OAuthError {
  return answer === 'server_error'
    ? new ServerError(undefined, { cause })
    : new TemporarilyUnavailable(
        `the token store is unavailable: retry after ${STORE_RETRY_AFTER_SECONDS} seconds`,
        STORE_RETRY_AFTER_SECONDS,
        { cause },
      );
}

/** Maps anything thrown while handling a request to an OAuth error, without leaking internals. */
export function toOAuthError(error: unknown, request: FastifyRequest, storeOutage: StoreOutageAnswer = 'server_error'): OAuthError {
  if (error instanceof OAuthError) {
    if (error instanceof ServerError) request.log.error({ err: error }, 'server_error');
    return error;
  }
  if (error instanceof StoreUnavailableError) {
    const outcome = storeOutage === 'server_error' ? 'nothing issued' : 'answered 503';
    request.log.error({ err: { type: error.name, message: error.message } }, `store unavailable: ${outcome}`);
    return storeOutageError(storeOutage, error);
  }
  const fastifyError = error as Partial<FastifyError>;
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new InvalidRequest(FRAMEWORK_ERRORS[fastifyError.code ?? ''] ?? 'the request is malformed');
  }
  request.log.error({ err: error }, 'unexpected error');
  return new ServerError();
}

export function sendOAuthError(reply: FastifyReply, error: OAuthError, realm: string): FastifyReply {
  if (error instanceof InvalidClient) {
    // RFC 6749 §5.2: on 401 "include the "WWW-Authenticate" response header field
    // matching the authentication scheme used by the client"; Basic is the only
    // HTTP scheme we accept, so it is also the one we advertise.
    reply.header('www-authenticate', `Basic realm="${realm}", charset="UTF-8"`);
  }
  // RFC 9449 §8: "providing the nonce value to be used by the client in the DPoP-Nonce header".
  if (error instanceof UseDpopNonce) reply.header('dpop-nonce', error.nonce);
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return sendOAuthJson(reply, error.statusCode, error.toJSON());
}

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AdminProblem } from '../../admin/problems.js';
import { StoreUnavailableError } from '../../errors/index.js';
import { STORE_RETRY_AFTER_SECONDS } from '../../http/oauth-reply.js';

/**
 * The admin API's one way to answer an error: RFC 9457 problem details as
 * `application/problem+json`, never a stack trace; what Fastify throws (body too large,
 * a malformed Content-Type) and a store outage become problems too.
 */

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const FRAMEWORK_PROBLEMS: Record<string, () => AdminProblem> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AdminProblem('payload-too-large', 'the body is larger than 64 KiB'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AdminProblem('unsupported-media-type', 'send the body as application/json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AdminProblem('invalid-json', 'the body does not match its Content-Length'),
};

/** What an error thrown anywhere in the admin routes answers. */
export function toProblem(error: unknown, request: FastifyRequest): AdminProblem {
  if (error instanceof AdminProblem) return error;
  if (error instanceof StoreUnavailableError) {
    request.log.error({ err: { type: error.name, message: error.message } }, 'store unavailable: admin API answered 503');
    return new AdminProblem('store-unavailable', `the store is unavailable: retry after ${STORE_RETRY_AFTER_SECONDS} seconds`, {
      retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
    });
  }
  const fastifyError = error as Partial<FastifyError>;
  const known = FRAMEWORK_PROBLEMS[fastifyError.code ?? ''];
  if (known) return known();
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)
    return new AdminProblem('validation', 'the request is malformed');
  request.log.error({ err: error }, 'unexpected error in the admin API');
  return new AdminProblem('internal-error', `an unexpected error; the server's log has it under request id ${request.id}`);
}

export function sendProblem(reply: FastifyReply, problem: AdminProblem): FastifyReply {
  const { retryAfterSeconds, allow, wwwAuthenticate } = problem.extras;
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
  if (allow !== undefined) reply.header('allow', allow);
  if (wwwAuthenticate !== undefined) reply.header('www-authenticate', wwwAuthenticate);
  return (
    reply
      .code(problem.status)
      .header('content-type', PROBLEM_CONTENT_TYPE)
      .header('cache-control', 'no-store')
      // A Buffer: Fastify adds no charset parameter, which RFC 9457's media type does not define.
      .send(Buffer.from(JSON.stringify(problem.toJSON())))
  );
}

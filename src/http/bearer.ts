import type { FastifyReply } from 'fastify';
import { InvalidRequest, type InvalidToken } from '../errors/index.js';

/**
 * Bearer tokens in the Authorization header (RFC 6750 §2.1), for the registration
 * endpoints: `Authorization: Bearer <b64token>`.
 */

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token, or undefined without an Authorization header; a malformed or other scheme is invalid_request (RFC 6750 §3.1). */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization === '') return undefined;
  const match = BEARER.exec(authorization);
  if (!match) throw new InvalidRequest('the Authorization header must be "Bearer <token>"');
  return match[1];
}

/**
 * RFC 6750 §3: a 401 carries `WWW-Authenticate: Bearer`; §3.1: "If the request lacks any
 * authentication information [...], the resource server SHOULD NOT include an error code".
 */
export function bearerChallenge(reply: FastifyReply, realm: string, error: InvalidToken, presented: boolean): void {
  const attributes = presented ? `, error="invalid_token", error_description="${error.description}"` : '';
  reply.header('www-authenticate', `Bearer realm="${realm}"${attributes}`);
}

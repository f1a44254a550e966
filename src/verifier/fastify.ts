import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { type AccessTokenClaims, TokenVerificationError, type Verifier } from './index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified access token's claims, set by `requireScope`. */
    accessToken?: AccessTokenClaims;
  }
}

/** RFC 6750 §2.1: `Authorization: Bearer <token>`; the scheme is case-insensitive. */
function bearerToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

function refuse(reply: FastifyReply, error: TokenVerificationError): FastifyReply {
  return reply
    .code(error.status)
    .header('www-authenticate', error.wwwAuthenticate)
    .header('cache-control', 'no-store')
    .send({ error: error.code, error_description: error.description });
}

/**
 * A Fastify preHandler that admits requests carrying a valid access token with every
 * scope in `scopes`, and answers the others per RFC 6750 §3.1. Usage:
 *   app.get('/api/me', { preHandler: requireScope(verifier, 'read') }, handler)
 */
export function requireScope(verifier: Verifier, ...scopes: string[]): preHandlerAsyncHookHandler {
  return async function checkAccessToken(request, reply) {
    const token = bearerToken(request);
    if (!token) {
      // RFC 6750 §3.1: "If the request lacks any authentication information [...] the
      // resource server SHOULD NOT include an error code or other error information."
      return reply
        .code(401)
        .header('www-authenticate', `Bearer realm="${verifier.realm}"`)
        .header('cache-control', 'no-store')
        .send({ error: 'invalid_token', error_description: 'an access token is required' });
    }
    try {
      request.accessToken = await verifier.verify(token, { requiredScopes: scopes });
    } catch (err) {
      if (err instanceof TokenVerificationError) return refuse(reply, err);
      throw err;
    }
    return undefined;
  };
}

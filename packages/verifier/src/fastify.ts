import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import {
  type AccessTokenClaims,
  protectedResourceMetadata,
  ReplayCacheUnavailableError,
  TokenVerificationError,
  type Verifier,
} from './index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified access token's claims, set by `requireScope`. */
    accessToken?: AccessTokenClaims;
  }
}

/**
 * RFC 6750 §2.1 `Authorization: Bearer <token>` or RFC 9449 §7.1 `Authorization: DPoP <token>`
 * (the same token68 syntax); schemes are case-insensitive.
 */
function presentedToken(request: FastifyRequest): { scheme: 'Bearer' | 'DPoP'; token: string } | undefined {
  const match = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  return { scheme: (match[1] as string).toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2] as string };
}

/**
 * The URI the client addressed, for the proof's `htu`: scheme and host as Fastify reads
 * them (behind a proxy, set Fastify's `trustProxy` so X-Forwarded-Proto/-Host count).
 */
function requestUri(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${request.url}`;
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
 * scope in `scopes` (Bearer, or DPoP with its proof), and answers the others per RFC 6750
 * §3.1 or RFC 9449 §7.1, in the scheme the token came with. Usage:
 *   app.get('/api/me', { preHandler: requireScope(verifier, 'read') }, handler)
 * With a verifier made with `resource`, every challenge carries `resource_metadata`
 * (RFC 9728 §5.1).
 */
export function requireScope(verifier: Verifier, ...scopes: string[]): preHandlerAsyncHookHandler {
  return async function checkAccessToken(request, reply) {
    const presented = presentedToken(request);
    if (!presented) {
      // RFC 6750 §3.1: "If the request lacks any authentication information [...] the
      // resource server SHOULD NOT include an error code or other error information."
      return reply
        .code(401)
        .header('www-authenticate', verifier.challenge({ requiredScopes: scopes }))
        .header('cache-control', 'no-store')
        .send({ error: 'invalid_token', error_description: 'an access token is required' });
    }
    try {
      const dpop =
        presented.scheme === 'DPoP' ? { dpop: { proof: request.headers.dpop, method: request.method, url: requestUri(request) } } : {};
      request.accessToken = await verifier.verify(presented.token, { requiredScopes: scopes, ...dpop });
    } catch (err) {
      if (err instanceof TokenVerificationError) return refuse(reply, err);
      // The proof may be fine, but it cannot be checked for replay now: a temporary refusal, not a 500.
      if (err instanceof ReplayCacheUnavailableError) {
        request.log.warn({ err }, 'DPoP replay cache unavailable');
        return reply
          .code(503)
          .header('retry-after', '1')
          .header('cache-control', 'no-store')
          .send({ error: 'temporarily_unavailable', error_description: 'the DPoP proof cannot be checked for replay now; retry later' });
      }
      throw err;
    }
    return undefined;
  };
}

export interface ProtectedResourceOptions {
  /** A verifier made with `resource`: the document describes that resource and its issuer. */
  readonly verifier: Verifier;
  /** The scopes the resource understands (`scopes_supported`), for example those its routes require. */
  readonly scopesSupported?: readonly string[];
  /** `resource_name`, shown by clients. */
  readonly resourceName?: string;
  /** `resource_documentation`: a URL of a page for developers. */
  readonly resourceDocumentation?: string;
}

/**
 * A Fastify plugin that serves the RFC 9728 metadata of `verifier.resource` at its
 * well-known URL (§3.1), readable from any origin (a public document, like RFC 8414 metadata):
 *   await app.register(protectedResource, { verifier, scopesSupported: ['mcp:tools'] })
 */
export async function protectedResource(app: FastifyInstance, options: ProtectedResourceOptions): Promise<void> {
  const { verifier } = options;
  if (verifier.resource === undefined || verifier.resourceMetadataUrl === undefined) {
    throw new TypeError('protectedResource needs a verifier made with createVerifier({ issuer, resource })');
  }
  const document = JSON.stringify(
    protectedResourceMetadata({
      resource: verifier.resource,
      // RFC 9728 §2: "JSON array containing a list of OAuth authorization server issuer identifiers".
      authorizationServers: [verifier.issuer],
      ...(options.scopesSupported ? { scopesSupported: options.scopesSupported } : {}),
      ...(options.resourceName !== undefined ? { resourceName: options.resourceName } : {}),
      ...(options.resourceDocumentation !== undefined ? { resourceDocumentation: options.resourceDocumentation } : {}),
    }),
  );
  app.get(new URL(verifier.resourceMetadataUrl).pathname, async (_request, reply) =>
    reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=300')
      .send(document),
  );
}

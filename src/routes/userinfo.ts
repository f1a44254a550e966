import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerChallenge, dpopChallenge } from '@oauth2-token-service/verifier';
import type { ClientDirectory } from '../clients/directory.js';
import type { Client } from '../clients/registry.js';
import { InsufficientScope, InvalidDpopProof, InvalidRequest, InvalidToken, type OAuthError } from '../errors/index.js';
import type { ResourceProofs } from '../dpop/resource-proofs.js';
import { allowClientOrigin, answerPreflights } from '../http/cors.js';
import { BODY_LIMIT_BYTES } from '../http/form-body.js';
import { sendOAuthJson, toOAuthError } from '../http/oauth-reply.js';
import { type PresentedToken, type UserinfoDependencies, userinfoClaims } from '../oidc/userinfo.js';

export interface UserinfoRouteOptions {
  readonly path: string;
  /** The endpoint's URL as clients address it: a DPoP proof's `htu`. */
  readonly url: string;
  readonly realm: string;
  readonly userinfo: UserinfoDependencies;
  readonly proofs: ResourceProofs;
  /** DPOP_SIGNING_ALGS: the `algs` of a DPoP challenge. */
  readonly dpopAlgorithms: readonly string[];
  /** For CORS: the clients whose allowed origins may read the answer. */
  readonly directory: ClientDirectory;
  /** The clients whose origins a CORS preflight may be answered for (CLIENTS_FILE). */
  readonly clients: { all(): readonly Client[] };
}

const CREDENTIALS = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** RFC 6750 §2.1 and RFC 9449 §7.1: `Authorization: Bearer <token>` or `DPoP <token>`; undefined without one. */
function presentedToken(request: FastifyRequest, check: (token: string, jkt: string) => Promise<void>): PresentedToken | undefined {
  const authorization = request.headers.authorization;
  if (authorization === undefined || authorization === '') return undefined;
  const match = CREDENTIALS.exec(authorization);
  if (!match) throw new InvalidRequest('the Authorization header must be "Bearer <token>" or "DPoP <token>"');
  const token = match[2] as string;
  return { token, scheme: match[1]?.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', checkProof: (jkt) => check(token, jkt) };
}

/**
 * GET and POST /oauth2/userinfo (OpenID Connect Core §5.3). Errors are RFC 6750 §3
 * challenges (and, for DPoP, RFC 9449 §7.1), with the same error as JSON in the body:
 * 401 `invalid_token`, 403 `insufficient_scope`, 401 `invalid_dpop_proof`; a request
 * without a token gets the challenge without an error code (§3.1). CORS as the token endpoint.
 */
export async function userinfoRoute(app: FastifyInstance, options: UserinfoRouteOptions): Promise<void> {
  const { realm, dpopAlgorithms } = options;
  const challenge = (reply: FastifyReply, error: OAuthError | undefined, scheme: 'Bearer' | 'DPoP') => {
    const described = error ? { error: error.error as 'invalid_token', errorDescription: error.description } : {};
    const scope = error instanceof InsufficientScope ? { scope: ['openid'] } : {};
    const bearer = bearerChallenge({ realm, ...(scheme === 'Bearer' ? { ...described, ...scope } : {}) });
    const dpop = dpopChallenge({ realm, algs: dpopAlgorithms, ...(scheme === 'DPoP' ? { ...described, ...scope } : {}) });
    // RFC 9449 §7.2: a resource that accepts both schemes may answer both challenges; the
    // error goes in the challenge of the scheme the client used.
    reply.header('www-authenticate', scheme === 'DPoP' ? `${dpop}, ${bearer}` : `${bearer}, ${dpop}`);
  };

  // §5.3.1 allows POST: a form body (RFC 6750 §2.2 puts no token there that we read) is accepted and ignored.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, _body, done) => done(null, undefined));
  app.setErrorHandler((error, request, reply) => {
    const oauthError = toOAuthError(error, request, 'temporarily_unavailable');
    if (oauthError instanceof InvalidToken || oauthError instanceof InsufficientScope || oauthError instanceof InvalidDpopProof) {
      const scheme = /^dpop /i.test(request.headers.authorization ?? '') || oauthError instanceof InvalidDpopProof ? 'DPoP' : 'Bearer';
      challenge(reply, oauthError, scheme);
      return sendOAuthJson(reply.header('cache-control', 'no-store'), oauthError.statusCode === 403 ? 403 : 401, oauthError.toJSON());
    }
    if (oauthError.retryAfterSeconds !== undefined) reply.header('retry-after', String(oauthError.retryAfterSeconds));
    return sendOAuthJson(reply, oauthError.statusCode, oauthError.toJSON());
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = presentedToken(request, (token, jkt) =>
      options.proofs.check(request.headers.dpop, { method: request.method, url: options.url }, token, jkt),
    );
    if (!presented) {
      challenge(reply, undefined, 'Bearer');
      return sendOAuthJson(reply, 401, { error: 'invalid_token', error_description: 'an access token is required' });
    }
    const { response, clientId } = await userinfoClaims(presented, options.userinfo);
    const client = await options.directory.find(clientId);
    if (client) allowClientOrigin(request, reply, client);
    return sendOAuthJson(reply, 200, response);
  };
  // §5.3.1: "The Client sends the UserInfo Request using either HTTP GET or HTTP POST."
  app.get(options.path, handler);
  app.post(options.path, handler);
  answerPreflights(app, options.path, options.clients, ['GET', 'POST']);
}

import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ClientRegistry } from '../clients/registry.js';
import type { TokenEndpointProofs } from '../dpop/token-endpoint.js';
import { InvalidDpopProof, UnauthorizedClient, UnsupportedGrantType } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import type { ClientlessGrant, Grant, TokenResponse } from '../grants/types.js';
import { authenticatedClient, type ClientAuthentication, presentedClientCredentials } from '../http/client-auth.js';
import { allowClientOrigin, answerPreflights } from '../http/cors.js';
import { formRequest, useOAuthFormBodies } from '../http/form-body.js';
import { sendOAuthJsonText } from '../http/oauth-reply.js';
import { tokenResponseJson } from '../grants/token-response-json.js';

export interface TokenRouteOptions {
  readonly path: string;
  readonly realm: string;
  /** Clients of CLIENTS_FILE: the origins a CORS preflight may be answered for. */
  readonly clients: ClientRegistry;
  /** Every client (the file's, registered ones, metadata documents) and how each proves who it is. */
  readonly authentication: ClientAuthentication;
  readonly grants: ReadonlyMap<string, Grant>;
  /** A grant some requests use without any client (a workload's JWT bearer grant); asked before a client is authenticated. */
  readonly clientless?: ClientlessGrant | undefined;
  /** DPoP proofs (RFC 9449 §5): validated, remembered, and the nonces to hand out. */
  readonly proofs: TokenEndpointProofs;
  /** Told the error code of every error answer. */
  readonly events: SecurityEvents;
}

/** POST /oauth2/token (RFC 6749 §3.2): authenticates the client, then dispatches on grant_type; CORS for browser clients. */
export async function tokenRoute(app: FastifyInstance, options: TokenRouteOptions): Promise<void> {
  const { clients, grants, clientless } = options;
  useOAuthFormBodies(app, {
    realm: options.realm,
    storeOutage: 'server_error',
    onErrorAnswer: (error) => options.events.emit({ event: 'token.failed', error: error.error }),
  });

  answerPreflights(app, options.path, clients);

  const answer = (reply: FastifyReply, response: TokenResponse) => {
    const nonce = options.proofs.nonceToSend();
    if (nonce !== undefined) reply.header('dpop-nonce', nonce);
    return sendOAuthJsonText(reply, 200, tokenResponseJson(response));
  };

  app.post(options.path, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    // A workload's request has no client at all: only its grant decides, and only on its grant_type.
    const presented = () => presentedClientCredentials(request.headers.authorization, body, query) !== undefined;
    if (clientless && body.get('grant_type') === clientless.grantType && clientless.serves(body, presented)) {
      const dpop = await options.proofs.check(request.headers.dpop, request.method);
      return answer(reply, await clientless.handle({ params: body, clientAddress: request.ip, dpop }));
    }
    // The client first, so that every later error reaches a browser client that allows this origin.
    const client = await authenticatedClient(request, { body, query }, options.authentication);
    allowClientOrigin(request, reply, client);
    const grant = grants.get(body.require('grant_type'));
    if (!grant) throw new UnsupportedGrantType('the grant_type is not supported by this authorization server');
    if (!client.grantTypes.has(grant.grantType)) {
      throw new UnauthorizedClient(`this client is not registered for grant_type ${grant.grantType}`);
    }
    // Before the grant runs, so a refused proof consumes no code and rotates no refresh token.
    const dpop = await options.proofs.check(request.headers.dpop, request.method);
    // RFC 9449 §5.2: with dpop_bound_access_tokens, "the authorization server MUST reject
    // token requests from this client that do not contain the DPoP header".
    if (client.dpopBoundAccessTokens && !dpop) throw new InvalidDpopProof('this client must send a DPoP proof (dpop_bound_access_tokens)');
    return answer(reply, await grant.handle({ client, params: body, clientAddress: request.ip, dpop }));
  });
}

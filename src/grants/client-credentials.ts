import { resolveRequestedScope } from '../oauth/scope.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { type Grant, tokenResponse } from './types.js';

/**
 * RFC 6749 §4.4. The client acts on its own behalf, so `sub` is its client id.
 * §4.4.3: "A refresh token SHOULD NOT be included."
 */
export function clientCredentialsGrant(deps: { readonly accessTokens: AccessTokens }): Grant {
  return {
    grantType: 'client_credentials',
    async handle({ client, params }) {
      const scope = resolveRequestedScope(params.get('scope'), client.scope);
      const issued = await deps.accessTokens.issue({ subject: client.clientId, clientId: client.clientId, scope });
      return tokenResponse(issued, scope);
    },
  };
}

import { tokenResponse, type Grant } from './types.js';
import { resolveRequestedScope } from './scope-request.js';

/**
 * RFC 6749 §4.4. The client acts on its own behalf, so `sub` is its client id.
 * §4.4.3: "A refresh token SHOULD NOT be included."
 */
export const clientCredentialsGrant: Grant = {
  grantType: 'client_credentials',
  async handle({ client, params }, { accessTokens }) {
    const scope = resolveRequestedScope(params.get('scope'), client.scope);
    const issued = await accessTokens.issue({ subject: client.clientId, clientId: client.clientId, scope });
    return tokenResponse(issued, scope);
  },
};

import type { SecurityEvents } from '../events/types.js';
import { type ResourceLookup, resolveNewTarget } from '../resources/indicators.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { type Grant, issuedEvent, targetRequest, tokenResponse } from './types.js';

/**
 * RFC 6749 §4.4. The client acts on its own behalf, so `sub` is its client id.
 * §4.4.3: "A refresh token SHOULD NOT be included."
 */
export function clientCredentialsGrant(deps: {
  readonly accessTokens: AccessTokens;
  readonly resources: ResourceLookup;
  readonly events: SecurityEvents;
}): Grant {
  return {
    grantType: 'client_credentials',
    async handle({ client, params, dpop }) {
      // No user consents here: the client's registered scope is the limit.
      const { resources, scope } = resolveNewTarget(targetRequest(params), client.scope, deps.resources, false);
      const issued = await deps.accessTokens.issue({
        subject: client.clientId,
        clientId: client.clientId,
        scope,
        resources,
        jkt: dpop?.jkt,
      });
      deps.events.emit(issuedEvent('client_credentials', client.clientId, client.clientId, issued, { scope, resources }));
      return tokenResponse(issued, scope);
    },
  };
}

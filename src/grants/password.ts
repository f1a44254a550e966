import { type Clock, nowSeconds } from '../clock.js';
import { InvalidGrant } from '../errors/index.js';
import { SignInBusy, SignInChecksInFlight, TooManyFailedAttempts } from './password-errors.js';
import { type ResourceLookup, resolveNewTarget } from '../resources/indicators.js';
import type { SecurityEvents } from '../events/types.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { newGrantId } from '../tokens/opaque.js';
import { type RoleHolders, scopeForUser } from '../users/roles.js';
import type { PasswordSignIn } from '../users/sign-in.js';
import type { GrantIndexing } from './grant-index.js';
import { familyKeyBinding, type RefreshFamilies } from './refresh-family.js';
import { type Grant, issuedEvent, targetRequest, tokenResponse } from './types.js';

export interface PasswordGrantDependencies {
  /** Password sign-in with the limits shared with the login page. */
  readonly signIn: PasswordSignIn;
  readonly refreshFamilies: RefreshFamilies;
  readonly accessTokens: AccessTokens;
  readonly resources: ResourceLookup;
  /** Whose roles are read now (USERS_FILE): the admin scopes only for an admin. */
  readonly users: RoleHolders;
  readonly clock: Clock;
  readonly grantIndexing: GrantIndexing;
  readonly events: SecurityEvents;
}

const INVALID_CREDENTIALS = 'invalid username or password';

/**
 * RFC 6749 §4.3, the resource owner password credentials grant. RFC 9700 §2.4: it "MUST
 * NOT be used"; it is off unless a client registers it. The attempt goes through the
 * sign-in limits shared with the login page (reserved before the password is checked).
 */
export function passwordGrant(deps: PasswordGrantDependencies): Grant {
  return {
    grantType: 'password',
    async handle({ client, params, clientAddress, dpop }) {
      const username = params.require('username');
      const password = params.require('password');
      // The user types a password, but consents to nothing: the client's registered scope is the limit.
      const { resources, scope: requested } = resolveNewTarget(targetRequest(params), client.scope, deps.resources, false);

      // Unknown users and wrong passwords cost the same scrypt run and get the same error.
      const signIn = await deps.signIn.attempt(username, password, clientAddress, 'password_grant');
      if (signIn.outcome === 'throttled') throw new TooManyFailedAttempts(signIn.retryAfterSeconds);
      if (signIn.outcome === 'checks_in_flight') throw new SignInChecksInFlight(signIn.retryAfterSeconds);
      if (signIn.outcome === 'busy') throw new SignInBusy(signIn.retryAfterSeconds);
      if (signIn.outcome === 'wrong_credentials') throw new InvalidGrant(INVALID_CREDENTIALS);
      const { user } = signIn;
      const scope = scopeForUser(requested, { sub: user.sub, clientScope: client.scope }, deps.users);

      const grantId = newGrantId();
      const authTime = nowSeconds(deps.clock);
      // Listed under the user and client before its first token (a refresh family extends the entry).
      const parties = { grantId, sub: user.sub, clientId: client.clientId, scope, resources, grantedAt: authTime };
      await deps.grantIndexing.recordFor(parties, deps.accessTokens.longestLifetimeSeconds);
      const refreshToken = client.grantTypes.has('refresh_token')
        ? await deps.refreshFamilies.start(grantId, {
            clientId: client.clientId,
            sub: user.sub,
            scope,
            resources: resources.map((r) => r.resource),
            authTime,
            ...familyKeyBinding(client, dpop),
          })
        : undefined;
      const issued = await deps.accessTokens.issue({
        subject: user.sub,
        clientId: client.clientId,
        scope,
        authTime,
        grantId,
        resources,
        jkt: dpop?.jkt,
      });
      deps.events.emit(
        issuedEvent('password', client.clientId, user.sub, issued, { scope, resources }, grantId, refreshToken !== undefined),
      );
      return tokenResponse(issued, scope, refreshToken);
    },
  };
}

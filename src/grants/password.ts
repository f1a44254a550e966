import { InvalidGrant, SignInBusy, TooManyFailedAttempts } from '../errors.js';
import { newGrantId } from '../tokens/opaque.js';
import { startRefreshFamily } from './refresh-family.js';
import { resolveRequestedScope } from './scope-request.js';
import { tokenResponse, type Grant } from './types.js';

const INVALID_CREDENTIALS = 'invalid username or password';

/**
 * RFC 6749 §4.3, the resource owner password credentials grant. RFC 9700 §2.4: it "MUST
 * NOT be used"; it is off unless a client registers it. The attempt goes through the
 * sign-in limits shared with the login page (reserved before the password is checked).
 */
export const passwordGrant: Grant = {
  grantType: 'password',
  async handle({ client, params, clientAddress }, services) {
    const username = params.require('username');
    const password = params.require('password');
    const scope = resolveRequestedScope(params.get('scope'), client.scope);

    // Unknown users and wrong passwords cost the same scrypt run and get the same error.
    const signIn = await services.signIn.attempt(username, password, clientAddress);
    if (signIn.outcome === 'throttled') throw new TooManyFailedAttempts(signIn.retryAfterSeconds);
    if (signIn.outcome === 'busy') throw new SignInBusy(signIn.retryAfterSeconds);
    if (signIn.outcome === 'wrong_credentials') throw new InvalidGrant(INVALID_CREDENTIALS);
    const { user } = signIn;

    const grantId = newGrantId();
    const authTime = Math.floor(services.clock() / 1000);
    const refreshToken = client.grantTypes.has('refresh_token')
      ? await startRefreshFamily(grantId, { clientId: client.clientId, sub: user.sub, scope, authTime }, services)
      : undefined;
    const issued = await services.accessTokens.issue({ subject: user.sub, clientId: client.clientId, scope, authTime, grantId });
    return tokenResponse(issued, scope, refreshToken);
  },
};

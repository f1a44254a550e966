import { InvalidGrant, TooManyFailedAttempts } from '../errors.js';
import { newGrantId } from '../tokens/opaque.js';
import { startRefreshFamily } from './refresh-family.js';
import { resolveRequestedScope } from './scope-request.js';
import { tokenResponse, type Grant } from './types.js';

const INVALID_CREDENTIALS = 'invalid username or password';

/**
 * RFC 6749 §4.3, the resource owner password credentials grant. RFC 9700 §2.4: it "MUST
 * NOT be used"; it is off unless a client registers it. Failures are counted per
 * username and per client + address in the store, so the limit holds across instances;
 * past it, attempts are refused without checking the password.
 */
export const passwordGrant: Grant = {
  grantType: 'password',
  async handle({ client, params, clientAddress }, services) {
    const username = params.require('username');
    const password = params.require('password');
    const scope = resolveRequestedScope(params.get('scope'), client.scope);

    const { maxPerUser, maxPerClientAddress, windowSeconds } = services.settings.passwordThrottle;
    const userKey = `password:user:${username.toLowerCase()}`;
    const clientKey = `password:client:${client.clientId}:${clientAddress}`;
    const [perUser, perClient] = await Promise.all([services.store.failures(userKey), services.store.failures(clientKey)]);
    const blocking = perUser.count >= maxPerUser ? perUser : perClient.count >= maxPerClientAddress ? perClient : undefined;
    if (blocking) throw new TooManyFailedAttempts(blocking.retryAfterSeconds);

    // Unknown users and wrong passwords cost the same scrypt run and get the same error.
    const user = await services.users.authenticate(username, password);
    if (!user) {
      await Promise.all([services.store.recordFailure(userKey, windowSeconds), services.store.recordFailure(clientKey, windowSeconds)]);
      throw new InvalidGrant(INVALID_CREDENTIALS);
    }
    await services.store.clearFailures(userKey);

    const grantId = newGrantId();
    const authTime = Math.floor(services.clock() / 1000);
    const refreshToken = client.grantTypes.has('refresh_token')
      ? await startRefreshFamily(grantId, { clientId: client.clientId, sub: user.sub, scope, authTime }, services)
      : undefined;
    const issued = await services.accessTokens.issue({ subject: user.sub, clientId: client.clientId, scope, authTime, grantId });
    return tokenResponse(issued, scope, refreshToken);
  },
};

import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import t, { type Test } from 'tap';
import { freePort } from '../../harness/ports.js';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { API, DEVICE_GRANT, deviceServer } from '../helpers/device-flow.js';
import { decideDeviceOverHttp } from '../helpers/http-browser.js';
import { memoryStore } from '../helpers/stores.js';

/**
 * The device authorization grant (RFC 8628) with clients we did not write, over a real socket
 * (plain http on loopback, the issuer being that address), the user deciding over HTTP as a
 * browser would (Chromium does it in test/e2e/device.browser.test.ts). oauth4webapi registers
 * a client with only the device grant (RFC 7591) and sees each answer of the token endpoint;
 * openid-client's pollDeviceAuthorizationGrant sees a denial, an expiry, and slows down when
 * told to. The server's clock is injected: a test moves it instead of waiting.
 */

async function listening(t: Test) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const server = await deviceServer(t, memoryStore, { env: { ISSUER: issuer, DYNAMIC_CLIENT_REGISTRATION: 'open' } });
  // The libraries check the ID token's times by the real clock: the server's starts there.
  server.clock.now = Date.now();
  await server.app.listen({ port, host: '127.0.0.1' });
  return { ...server, issuer };
}

const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** What processDeviceCodeResponse threw: the RFC 8628 §3.5 error code it read. */
async function refusedWith(as: oauth.AuthorizationServer, registered: oauth.Client, deviceCode: string): Promise<string> {
  const response = await oauth.deviceCodeGrantRequest(as, registered, oauth.None(), deviceCode, insecure);
  try {
    await oauth.processDeviceCodeResponse(as, registered, response);
    return 'tokens';
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return err.error;
    throw err;
  }
}

t.test('oauth4webapi: a client registered with only the device grant; pending, slow_down, tokens, a denial, an expiry', async (t) => {
  const { issuer, clock } = await listening(t);
  const as = await oauth.processDiscoveryResponse(new URL(issuer), await oauth.discoveryRequest(new URL(issuer), insecure));
  t.equal(as.device_authorization_endpoint, `${issuer}/oauth2/device_authorization`);
  t.ok(as.grant_types_supported?.includes(DEVICE_GRANT));
  const registration = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { client_name: 'Terminal agent', grant_types: [DEVICE_GRANT], token_endpoint_auth_method: 'none' },
      insecure,
    ),
  );
  t.same(
    [registration.grant_types, registration.redirect_uris, registration.response_types, registration.client_secret],
    [[DEVICE_GRANT], [], [], undefined],
    'no redirect URI, no response type: the device flow alone',
  );
  const registered: oauth.Client = { client_id: registration.client_id };
  const start = async () =>
    oauth.processDeviceAuthorizationResponse(
      as,
      registered,
      await oauth.deviceAuthorizationRequest(as, registered, oauth.None(), { scope: 'openid read', resource: API }, insecure),
    );

  const approved = await start();
  t.same([approved.expires_in, approved.interval, approved.verification_uri], [600, 5, `${issuer}/device`]);
  t.equal(await refusedWith(as, registered, approved.device_code), 'authorization_pending');
  t.equal(await refusedWith(as, registered, approved.device_code), 'slow_down');
  const page = await decideDeviceOverHttp(issuer, approved.user_code, ALICE);
  t.match(page.text, '<h1>Device connected</h1>');
  clock.now += 10_000;
  const result = await oauth.processDeviceCodeResponse(
    as,
    registered,
    await oauth.deviceCodeGrantRequest(as, registered, oauth.None(), approved.device_code, insecure),
  );
  t.match(decodeJwt(result.access_token), { sub: 'user-alice', client_id: registration.client_id, aud: API, scope: 'read' });
  t.match(oauth.getValidatedIdTokenClaims(result), { sub: 'user-alice', aud: registration.client_id, iss: issuer });
  t.equal(result.refresh_token, undefined, 'it did not register refresh_token');

  const denied = await start();
  await decideDeviceOverHttp(issuer, denied.user_code, ALICE, 'deny');
  t.equal(await refusedWith(as, registered, denied.device_code), 'access_denied');

  const expired = await start();
  clock.now += 600_000;
  t.equal(await refusedWith(as, registered, expired.device_code), 'expired_token');
});

t.test('openid-client: pollDeviceAuthorizationGrant slows down when told to, and sees a denial and an expiry', async (t) => {
  const { issuer, clock } = await listening(t);
  const config = await client.discovery(new URL(issuer), 'tv', undefined, client.None(), { execute: [client.allowInsecureRequests] });
  t.equal(config.serverMetadata().device_authorization_endpoint, `${issuer}/oauth2/device_authorization`);

  // The token endpoint's answers and when they came; a slow_down has the user approve and a
  // quarter of a minute pass at the server before the library's next poll.
  const answers: { error: string | undefined; at: number }[] = [];
  let onSlowDown: (() => Promise<void>) | undefined;
  config[client.customFetch] = async (url, options) => {
    const response = await fetch(url, options as RequestInit);
    if (new URL(url).pathname !== '/oauth2/token') return response;
    const body = (await response.clone().json()) as { error?: string };
    answers.push({ error: body.error, at: performance.now() });
    if (body.error === 'slow_down' && onSlowDown) await onSlowDown();
    return response;
  };

  const slowed = await client.initiateDeviceAuthorization(config, { scope: 'openid tools', resource: 'https://mcp.example.com/mcp' });
  onSlowDown = async () => {
    onSlowDown = undefined;
    await decideDeviceOverHttp(issuer, slowed.user_code, ALICE);
    clock.now += 15_000;
  };
  // The library waits `interval` before each poll: shortened here, so it polls too soon and is told to slow down.
  const tokens = await client.pollDeviceAuthorizationGrant(config, { ...slowed, interval: 0.01 });
  t.same(
    answers.map((a) => a.error),
    ['authorization_pending', 'slow_down', undefined],
  );
  const [, slowDown, granted] = answers as [unknown, { at: number }, { at: number }];
  t.ok(granted.at - slowDown.at >= 5000, `after slow_down it waited 5 s more (${Math.round(granted.at - slowDown.at)} ms)`);
  t.match(tokens.claims(), { sub: 'user-alice', aud: 'tv' });
  t.match(decodeJwt(tokens.access_token), { aud: 'https://mcp.example.com/mcp', scope: 'tools' });
  t.ok(tokens.refresh_token, 'tv registered refresh_token');

  const denied = await client.initiateDeviceAuthorization(config, { scope: 'read', resource: API });
  await decideDeviceOverHttp(issuer, denied.user_code, ALICE, 'deny');
  await t.rejects(client.pollDeviceAuthorizationGrant(config, { ...denied, interval: 0.01 }), {
    name: 'ResponseBodyError',
    error: 'access_denied',
    error_description: 'the user denied the request',
  });

  const expired = await client.initiateDeviceAuthorization(config, { scope: 'read', resource: API });
  clock.now += 600_000;
  await t.rejects(client.pollDeviceAuthorizationGrant(config, { ...expired, interval: 0.01 }), {
    name: 'ResponseBodyError',
    error: 'expired_token',
  });
});

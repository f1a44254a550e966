import type { Test } from 'tap';
import { calculateJwkThumbprint } from 'jose';
import { InjectBrowser } from '../helpers/browser-flow.js';
import {
  API,
  DEVICE_GRANT,
  type DeviceAuthorization,
  decideInBrowser,
  deviceServer,
  kiosk,
  MCP,
  poll,
  startDevice,
  tv,
  WEB_SECRET,
} from '../helpers/device-flow.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { claimsOf } from '../helpers/resource-fixtures.js';
import { ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const INVALID_CODE = 'the device code is invalid, expired, or was issued to another client';

/** The device authorization grant (RFC 8628) end to end, with exact answers, the same on every store. */
export function deviceFlowSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`POST /oauth2/device_authorization (RFC 8628 §3.1, §3.2) on ${name}`, async (t) => {
    t.test('a public client with its client_id: the codes, the verification URIs, expires_in and interval', async (t) => {
      const { app } = await deviceServer(t, open);
      const res = await tv(app).post('/oauth2/device_authorization', { scope: 'openid read' }, [API]);
      t.equal(res.statusCode, 200);
      t.same(Object.fromEntries(Object.keys(NO_STORE_JSON).map((h) => [h, res.headers[h]])), NO_STORE_JSON, 'RFC 6749 §5.1 headers');
      const body = res.json() as DeviceAuthorization;
      t.same(Object.keys(body), ['device_code', 'user_code', 'verification_uri', 'verification_uri_complete', 'expires_in', 'interval']);
      t.match(body.device_code, /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/, '128-bit grant id and 256-bit secret');
      t.match(body.user_code, USER_CODE, '§6.1: 8 characters of BCDFGHJKLMNPQRSTVWXZ, XXXX-XXXX');
      t.same(
        [body.verification_uri, body.verification_uri_complete, body.expires_in, body.interval],
        [`${ISSUER}/device`, `${ISSUER}/device?user_code=${body.user_code}`, 600, 5],
      );
    });

    t.test('a confidential client authenticates as at the token endpoint; DEVICE_CODE_TTL is expires_in', async (t) => {
      const { app } = await deviceServer(t, open, { env: { DEVICE_CODE_TTL: '120' } });
      const started = await startDevice(kiosk(app), { scope: 'read' });
      t.equal(started.expires_in, 120);
      const wrong = new TokenClient(app, 'kiosk', 'not-the-secret');
      expectOAuthError(t, await wrong.post('/oauth2/device_authorization', { scope: 'read' }), {
        status: 401,
        error: 'invalid_client',
        description: 'client authentication failed',
      });
      expectOAuthError(t, await new TokenClient(app, 'nobody', null).post('/oauth2/device_authorization', {}), {
        status: 401,
        error: 'invalid_client',
        description: 'client authentication failed',
      });
      expectOAuthError(t, await new TokenClient(app, 'kiosk', null).post('/oauth2/device_authorization', {}), {
        status: 401,
        error: 'invalid_client',
        description: 'client authentication failed',
      });
    });

    t.test('refused: a client without the grant, a scope or resource outside what it may have', async (t) => {
      const { app } = await deviceServer(t, open);
      expectOAuthError(t, await new TokenClient(app, 'web', WEB_SECRET).post('/oauth2/device_authorization', { scope: 'read' }), {
        status: 400,
        error: 'unauthorized_client',
        description: `this client is not registered for grant_type ${DEVICE_GRANT}`,
      });
      expectOAuthError(t, await kiosk(app).post('/oauth2/device_authorization', { scope: 'read write' }), {
        status: 400,
        error: 'invalid_scope',
      });
      expectOAuthError(t, await tv(app).post('/oauth2/device_authorization', { scope: 'read' }, ['https://other.example.com/']), {
        status: 400,
        error: 'invalid_target',
        description: 'resource is not registered at this authorization server',
      });
    });
  });

  t.test(`POST /oauth2/token grant_type=${DEVICE_GRANT} (RFC 8628 §3.4, §3.5) on ${name}`, async (t) => {
    t.test('authorization_pending, then slow_down when polled sooner than the interval, which grows by 5 s', async (t) => {
      const { app, advance } = await deviceServer(t, open);
      const client = tv(app);
      const { device_code } = await startDevice(client);
      const pending = { status: 400, error: 'authorization_pending', description: 'the user has not yet approved or denied the request' };
      const slowDown = (seconds: number) => ({
        status: 400,
        error: 'slow_down',
        description: `polled too often: wait at least ${seconds} seconds between requests`,
      });
      expectOAuthError(t, await poll(client, device_code), pending);
      expectOAuthError(t, await poll(client, device_code), slowDown(10));
      await advance(9);
      expectOAuthError(t, await poll(client, device_code), slowDown(15));
      await advance(15);
      expectOAuthError(t, await poll(client, device_code), pending);
    });

    t.test('approved in the browser: one token response as from the code grant, then invalid_grant', async (t) => {
      const { app, advance, store } = await deviceServer(t, open);
      const client = tv(app);
      const { device_code, user_code } = await startDevice(client, { scope: 'openid read' }, [API]);
      const page = await decideInBrowser(new InjectBrowser(app), user_code);
      t.match(page.body, '<h1>Device connected</h1>');
      const res = await poll(client, device_code);
      t.equal(res.statusCode, 200);
      const body = res.json();
      t.same(Object.keys(body), ['access_token', 'token_type', 'expires_in', 'scope', 'refresh_token', 'id_token']);
      // As from a code: the token for the resource carries its scopes; openid is the ID token's.
      t.same([body.token_type, body.expires_in, body.scope], ['bearer', 3600, 'read']);
      const grantId = device_code.split('.')[0];
      t.match(claimsOf(body.access_token), { sub: 'user-alice', client_id: 'tv', aud: API, scope: 'read', grant_id: grantId });
      t.match(claimsOf(body.id_token), { sub: 'user-alice', aud: 'tv', iss: ISSUER, amr: ['pwd'] });
      const listed = await store.grantIndex.listGrants({ sub: 'user-alice' });
      t.same(
        listed.map((g) => [g.grantId, g.clientId]),
        [[grantId, 'tv']],
        'listed under its user (grants list, grants revoke)',
      );
      await advance(5);
      expectOAuthError(t, await poll(client, device_code), {
        status: 400,
        error: 'invalid_grant',
        description: 'the device code was already used',
      });
      const refreshed = await client.refresh(body.refresh_token);
      t.equal(refreshed.statusCode, 200, 'the refresh token works');
    });

    t.test('a client without refresh_token gets none; without openid, no ID token', async (t) => {
      const { app } = await deviceServer(t, open);
      const { device_code, user_code } = await startDevice(kiosk(app), { scope: 'read' }, []);
      await decideInBrowser(new InjectBrowser(app), user_code);
      const res = await poll(kiosk(app), device_code);
      t.same(Object.keys(res.json()), ['access_token', 'token_type', 'expires_in', 'scope']);
      t.match(claimsOf(res.json().access_token), { aud: ISSUER, scope: 'read', client_id: 'kiosk' });
    });

    t.test('a poll with a DPoP proof gets a DPoP-bound token (RFC 9449 §5)', async (t) => {
      const { app, clock } = await deviceServer(t, open);
      const client = tv(app);
      const { device_code, user_code } = await startDevice(client, { scope: 'tools' }, [MCP]);
      await decideInBrowser(new InjectBrowser(app), user_code);
      const key = await dpopKey();
      const proof = await dpopProof(key, { htu: `${ISSUER}/oauth2/token`, iat: Math.floor(clock.now / 1000) });
      const res = await app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof },
        payload: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code, client_id: 'tv' }).toString(),
      });
      t.equal(res.json().token_type, 'DPoP');
      t.same(claimsOf(res.json().access_token).cnf, { jkt: await calculateJwkThumbprint(key.publicJwk, 'sha256') });
      t.match(claimsOf(res.json().access_token), { aud: MCP, scope: 'tools' });
    });

    t.test('access_denied after a denial, to every poll', async (t) => {
      const { app, advance } = await deviceServer(t, open);
      const client = tv(app);
      const { device_code, user_code } = await startDevice(client);
      const page = await decideInBrowser(new InjectBrowser(app), user_code, 'deny');
      t.match(page.body, '<h1>Access denied</h1>');
      for (let i = 0; i < 2; i++) {
        expectOAuthError(t, await poll(client, device_code), {
          status: 400,
          error: 'access_denied',
          description: 'the user denied the request',
        });
        await advance(5);
      }
    });

    t.test('expired_token once DEVICE_CODE_TTL has passed, approved or not; then invalid_grant', async (t) => {
      const { app, advance } = await deviceServer(t, open);
      const client = tv(app);
      const started = await startDevice(client);
      const approved = await startDevice(client);
      await decideInBrowser(new InjectBrowser(app), approved.user_code);
      await advance(600);
      const expired = { status: 400, error: 'expired_token', description: 'the device code has expired: start a new device authorization' };
      expectOAuthError(t, await poll(client, started.device_code), expired);
      expectOAuthError(t, await poll(client, approved.device_code), expired);
      await advance(600);
      expectOAuthError(t, await poll(client, started.device_code), { status: 400, error: 'invalid_grant', description: INVALID_CODE });
    });

    t.test('invalid_grant: an unknown or malformed code, or one issued to another client', async (t) => {
      const { app } = await deviceServer(t, open);
      const { device_code } = await startDevice(tv(app));
      const unknown = `${device_code.slice(0, 23)}${'A'.repeat(43)}`;
      for (const [client, code] of [
        [tv(app), unknown],
        [tv(app), 'not-a-device-code'],
        [kiosk(app), device_code],
      ] as const) {
        expectOAuthError(t, await poll(client, code), { status: 400, error: 'invalid_grant', description: INVALID_CODE });
      }
      expectOAuthError(t, await poll(tv(app), device_code), {
        status: 400,
        error: 'authorization_pending',
        description: 'the user has not yet approved or denied the request',
      });
    });

    t.test('unauthorized_client, invalid_client, invalid_request', async (t) => {
      const { app } = await deviceServer(t, open);
      const { device_code } = await startDevice(tv(app));
      expectOAuthError(t, await poll(new TokenClient(app, 'web', WEB_SECRET), device_code), {
        status: 400,
        error: 'unauthorized_client',
        description: `this client is not registered for grant_type ${DEVICE_GRANT}`,
      });
      expectOAuthError(t, await poll(new TokenClient(app, 'kiosk', 'wrong'), device_code), {
        status: 401,
        error: 'invalid_client',
        description: 'client authentication failed',
      });
      expectOAuthError(t, await tv(app).token({ grant_type: DEVICE_GRANT }), {
        status: 400,
        error: 'invalid_request',
        description: "parameter 'device_code' is required",
      });
    });

    t.test('20 concurrent polls of an approved code: exactly one gets tokens', async (t) => {
      const { app } = await deviceServer(t, open);
      const client = tv(app);
      const { device_code, user_code } = await startDevice(client);
      await decideInBrowser(new InjectBrowser(app), user_code);
      const polls = await Promise.all(Array.from({ length: 20 }, () => poll(client, device_code)));
      t.equal(polls.filter((r) => r.statusCode === 200).length, 1);
      t.same(new Set(polls.filter((r) => r.statusCode !== 200).map((r) => r.json().error)), new Set(['invalid_grant']));
    });
  });
}

import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { buildTestServer, NO_STORE_JSON } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

/** Clients with the password grant, so tests get a refresh family in one call. */
const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  { client_id: 'app', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read write' },
  { client_id: 'other', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read write' },
  { client_id: 'mobile', grant_types: ['password', 'refresh_token'], scope: 'read', token_endpoint_auth_method: 'none' },
];
export const INVALID = 'the refresh token is invalid, expired, revoked, or was issued to another client';
export const REUSED = 'the refresh token was already used: every token of this grant is now revoked';

/** A server on a fresh store, a confidential client `app`, and alice's first tokens on demand. */
export async function setup(t: Test, open: OpenStore, env: Record<string, string> = {}) {
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), store: await open(t), env });
  const app = new TokenClient(server.app, 'app', WEB_SECRET);
  const firstTokens = async (client = app, scope = 'read write') => {
    const res = await client.token({ grant_type: 'password', username: ALICE.username, password: ALICE.password, scope });
    t.equal(res.statusCode, 200, 'password grant');
    return res.json() as { access_token: string; refresh_token: string; scope: string };
  };
  const clientNamed = (clientId: string, secret: string | null = WEB_SECRET) => new TokenClient(server.app, clientId, secret);
  return { ...server, app, firstTokens, clientNamed };
}

export const expectInvalidGrant = (t: Test, res: InjectedResponse, description: string) =>
  expectOAuthError(t, res, { status: 400, error: 'invalid_grant', description });

export function refreshTokenSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`grant_type=refresh_token (${name})`, async (t) => {
    t.test('rotation: a new refresh token each use; the old one is reuse, which revokes the family', async (t) => {
      const { app, firstTokens } = await setup(t, open, { REFRESH_REUSE_GRACE: '0' });
      const first = await firstTokens();
      const rotated = await app.refresh(first.refresh_token);
      t.equal(rotated.statusCode, 200);
      t.match(rotated.headers, NO_STORE_JSON);
      const second = rotated.json();
      t.same(Object.keys(second).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
      t.not(second.refresh_token, first.refresh_token);
      t.equal(second.refresh_token.split('.')[0], first.refresh_token.split('.')[0], 'same family');
      const third = (await app.refresh(second.refresh_token)).json();
      expectInvalidGrant(t, await app.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await app.refresh(third.refresh_token), INVALID);
    });

    t.test('grace: one retry of the just-rotated token gets the same successor; a second retry is reuse', async (t) => {
      const { app, firstTokens } = await setup(t, open, { REFRESH_REUSE_GRACE: '10' });
      const first = await firstTokens();
      const original = (await app.refresh(first.refresh_token)).json();
      const retry = await app.refresh(first.refresh_token);
      t.equal(retry.statusCode, 200);
      t.same(retry.json(), original, 'the same successor tokens');
      expectInvalidGrant(t, await app.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await app.refresh(original.refresh_token), INVALID);
    });

    t.test('grace: a retry after the window is reuse', async (t) => {
      const { app, firstTokens, advance } = await setup(t, open, { REFRESH_REUSE_GRACE: '1' });
      const first = await firstTokens();
      const successor = (await app.refresh(first.refresh_token)).json();
      await advance(1.1);
      expectInvalidGrant(t, await app.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await app.refresh(successor.refresh_token), INVALID);
    });

    t.test('grace applies only while the successor is still current', async (t) => {
      const { app, firstTokens } = await setup(t, open, { REFRESH_REUSE_GRACE: '10' });
      const first = await firstTokens();
      const second = (await app.refresh(first.refresh_token)).json();
      const third = (await app.refresh(second.refresh_token)).json();
      expectInvalidGrant(t, await app.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await app.refresh(third.refresh_token), INVALID);
    });

    t.test('bound to its client; a confidential client must authenticate', async (t) => {
      const { app, firstTokens, clientNamed } = await setup(t, open);
      const first = await firstTokens();
      expectInvalidGrant(t, await clientNamed('other').refresh(first.refresh_token), INVALID);
      expectOAuthError(t, await clientNamed('app', null).refresh(first.refresh_token), {
        status: 401,
        error: 'invalid_client',
        description: 'client authentication failed',
      });
      t.equal((await app.refresh(first.refresh_token)).statusCode, 200, 'the failed attempts did not burn the token');
    });

    t.test('a public client gets no grace window: an immediate retry is reuse and revokes the family (RFC 9700 §4.14.2)', async (t) => {
      const sealedResponses: string[] = [];
      const recording: OpenStore = async (t) => {
        const opened = await open(t);
        const rotate = opened.store.rotateRefreshFamily.bind(opened.store);
        opened.store.rotateRefreshFamily = (presented, successor, sealed, options) => {
          sealedResponses.push(sealed);
          return rotate(presented, successor, sealed, options);
        };
        return opened;
      };
      const { firstTokens, clientNamed } = await setup(t, recording, { REFRESH_REUSE_GRACE: '10' });
      const mobile = clientNamed('mobile', null);
      const first = await firstTokens(mobile, 'read');
      const successor = await mobile.refresh(first.refresh_token);
      t.equal(successor.statusCode, 200);
      t.same(sealedResponses, [''], 'no successor response sealed for a window the client does not get');
      expectInvalidGrant(t, await mobile.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await mobile.refresh(successor.json().refresh_token), INVALID);
    });

    t.test('a public client refreshes with its client_id', async (t) => {
      const { firstTokens, clientNamed } = await setup(t, open);
      const mobile = clientNamed('mobile', null);
      const first = await firstTokens(mobile, 'read');
      const res = await mobile.refresh(first.refresh_token);
      t.equal(res.statusCode, 200);
      t.equal(res.json().scope, 'read');
    });

    t.test('scope may narrow the access token; the family keeps the original scope', async (t) => {
      const { app, firstTokens } = await setup(t, open);
      const first = await firstTokens();
      const narrowed = await app.refresh(first.refresh_token, { scope: 'read' });
      t.equal(narrowed.json().scope, 'read');
      const widenedBack = await app.refresh(narrowed.json().refresh_token, { scope: 'read write' });
      t.equal(widenedBack.statusCode, 200, 'the new refresh token still carries the full grant');
      t.equal(widenedBack.json().scope, 'read write');
      const never = await app.refresh(widenedBack.json().refresh_token, { scope: 'read admin' });
      expectOAuthError(t, never, { status: 400, error: 'invalid_scope', description: 'scope not allowed for this client: admin' });
    });

    t.test('garbage and unknown tokens are invalid_grant', async (t) => {
      const { app, firstTokens } = await setup(t, open);
      const first = await firstTokens();
      expectInvalidGrant(t, await app.refresh('garbage'), INVALID);
      const [grant] = first.refresh_token.split('.');
      expectInvalidGrant(t, await app.refresh(`${grant}.${'A'.repeat(43)}`), INVALID);
    });
  });
}

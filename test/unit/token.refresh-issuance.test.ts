import { decodeJwt } from 'jose';
import t, { type Test } from 'tap';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { buildTestServer, NO_STORE_JSON } from '../helpers/server.js';
import { TokenClient } from '../helpers/token-client.js';

/**
 * SEP-2207 (MCP "Refresh Tokens"): in pure OAuth "the Authorization Server determines whether
 * to issue one based on the client's capabilities (e.g., the refresh_token grant type in
 * client metadata)"; `offline_access` is the OpenID Connect way for a client to say it wants
 * one. Ours: a client registered with `refresh_token` gets one from the code grant whether or
 * not it asked for `offline_access`; a client without it never does, even when it asks. The
 * refresh tokens of a public client rotate on every use, with no grace window.
 */

const CLI_REDIRECT = 'http://127.0.0.1/callback';
const HYBRID_REDIRECT = 'https://hybrid.example.com/cb';
const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  {
    client_id: 'cli',
    redirect_uris: [CLI_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read',
    token_endpoint_auth_method: 'none',
  },
  {
    client_id: 'hybrid',
    redirect_uris: [HYBRID_REDIRECT],
    grant_types: ['authorization_code', 'implicit', 'refresh_token'],
    response_types: ['code', 'token'],
    scope: 'read',
    token_endpoint_auth_method: 'none',
  },
];
const REDIRECTS: Record<string, string> = { web: WEB_REDIRECT, single: 'https://single.example.com/cb', cli: CLI_REDIRECT };

async function setup(t: Test) {
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), env: { REFRESH_REUSE_GRACE: '10' } });
  /** alice's token response for a code `clientId` got for `scope` (`extra`: more token request parameters). */
  const tokensFor = async (client: TokenClient, scope: string, extra: Record<string, string> = {}) => {
    const { verifier, challenge } = pkcePair();
    const redirectUri = REDIRECTS[client.clientId] as string;
    const params = {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: redirectUri,
      scope,
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const approved = await signInAndDecide(new InjectBrowser(server.app), params, ALICE);
    const code = redirectParams(approved.headers.location as string).code as string;
    const res = await client.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      ...extra,
    });
    t.equal(res.statusCode, 200);
    t.match(res.headers, NO_STORE_JSON);
    return res.json() as Record<string, unknown>;
  };
  return { ...server, tokensFor };
}

/** A token response with its token values replaced by what they are. */
function shapeOf(body: Record<string, unknown>): Record<string, unknown> {
  return {
    ...body,
    access_token: typeof body.access_token === 'string' ? 'JWT' : body.access_token,
    ...('refresh_token' in body ? { refresh_token: typeof body.refresh_token === 'string' ? 'opaque' : body.refresh_token } : {}),
  };
}

t.test('SEP-2207: refresh tokens follow the client registered grant_types', async (t) => {
  const { app, tokensFor } = await setup(t);
  const web = new TokenClient(app, 'web', WEB_SECRET);
  const single = new TokenClient(app, 'single', WEB_SECRET);

  t.test('a client registered with refresh_token: one without offline_access, and one with it', async (t) => {
    t.same(shapeOf(await tokensFor(web, 'read')), {
      access_token: 'JWT',
      token_type: 'bearer',
      expires_in: 3600,
      scope: 'read',
      refresh_token: 'opaque',
    });
    const offline = await tokensFor(web, 'read offline_access');
    const granted = 'offline_access read';
    t.same(shapeOf(offline), { access_token: 'JWT', token_type: 'bearer', expires_in: 3600, scope: granted, refresh_token: 'opaque' });
    t.equal(decodeJwt(offline.access_token as string).scope, granted, 'no resource: the identity scopes stay in the token (userinfo)');
    const refreshed = await web.refresh(offline.refresh_token as string);
    t.same(shapeOf(refreshed.json()), {
      access_token: 'JWT',
      token_type: 'bearer',
      expires_in: 3600,
      scope: granted,
      refresh_token: 'opaque',
    });
  });

  t.test('a client without refresh_token: none, even when it asks for offline_access, which is ignored (OIDC Core §11)', async (t) => {
    t.same(shapeOf(await tokensFor(single, 'read')), { access_token: 'JWT', token_type: 'bearer', expires_in: 3600, scope: 'read' });
    t.same(shapeOf(await tokensFor(single, 'read offline_access')), {
      access_token: 'JWT',
      token_type: 'bearer',
      expires_in: 3600,
      scope: 'read',
    });
  });

  t.test('offline_access added to a token request (SEP-2207 allows it) is ignored when the grant lacks it', async (t) => {
    const code = await tokensFor(web, 'read', { scope: 'read offline_access' });
    t.same(shapeOf(code), { access_token: 'JWT', token_type: 'bearer', expires_in: 3600, scope: 'read', refresh_token: 'opaque' });
    const alone = await web.refresh(code.refresh_token as string, { scope: 'offline_access' });
    t.equal(alone.statusCode, 200, 'alone: as without scope');
    t.equal(alone.json().scope, 'read');
    const added = await web.refresh(alone.json().refresh_token as string, { scope: 'offline_access read' });
    t.same(shapeOf(added.json()), { access_token: 'JWT', token_type: 'bearer', expires_in: 3600, scope: 'read', refresh_token: 'opaque' });
    const withoutGrant = await tokensFor(single, 'read', { scope: 'offline_access read' });
    t.same(shapeOf(withoutGrant), { access_token: 'JWT', token_type: 'bearer', expires_in: 3600, scope: 'read' });
    expectOAuthError(t, await web.refresh(added.json().refresh_token as string, { scope: 'read write' }), {
      status: 400,
      error: 'invalid_scope',
      description: 'scope not allowed for this client: write',
    });
  });

  t.test('the implicit flow ignores offline_access (OIDC Core §11): never a refresh token there', async (t) => {
    const browser = new InjectBrowser(app);
    const params = { response_type: 'token', client_id: 'hybrid', redirect_uri: HYBRID_REDIRECT, scope: 'read offline_access', state: 's' };
    const approved = await signInAndDecide(browser, params, ALICE);
    const answer = redirectParams(approved.headers.location as string, 'fragment');
    t.same(Object.keys(answer), ['access_token', 'token_type', 'expires_in', 'scope', 'state', 'iss']);
    t.equal(answer.scope, 'read');
    t.equal(decodeJwt(answer.access_token as string).scope, 'read');
  });

  t.test('a public client: a refresh token, rotated on every use, and no grace for the rotated one', async (t) => {
    const cli = new TokenClient(app, 'cli', null);
    const first = await tokensFor(cli, 'read');
    t.same(shapeOf(first), { access_token: 'JWT', token_type: 'bearer', expires_in: 3600, scope: 'read', refresh_token: 'opaque' });
    const second = await cli.refresh(first.refresh_token as string);
    t.equal(second.statusCode, 200);
    t.not(second.json().refresh_token, first.refresh_token, 'rotated');
    const third = await cli.refresh(second.json().refresh_token as string);
    t.not(third.json().refresh_token, second.json().refresh_token, 'rotated again');
    expectOAuthError(t, await cli.refresh(second.json().refresh_token as string), {
      status: 400,
      error: 'invalid_grant',
      description: 'the refresh token was already used: every token of this grant is now revoked',
    });
  });
});

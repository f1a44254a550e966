import { generateKeyPair, SignJWT } from 'jose';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { buildTestServer, ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

export const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  {
    client_id: 'app',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['password', 'refresh_token', 'client_credentials'],
    scope: 'read write',
  },
  {
    client_id: 'rs',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['client_credentials'],
    scope: '',
    introspect_all_tokens: true,
  },
  { client_id: 'peer', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['client_credentials'], scope: 'read' },
  { client_id: 'mobile', grant_types: ['password', 'refresh_token'], scope: 'read', token_endpoint_auth_method: 'none' },
];

async function setup(t: Test, open: OpenStore) {
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), store: await open(t) });
  const app = new TokenClient(server.app, 'app', WEB_SECRET);
  const rs = new TokenClient(server.app, 'rs', WEB_SECRET);
  const peer = new TokenClient(server.app, 'peer', WEB_SECRET);
  const tokens = async () =>
    (await app.token({ grant_type: 'password', username: ALICE.username, password: ALICE.password })).json() as {
      access_token: string;
      refresh_token: string;
    };
  const publicClient = new TokenClient(server.app, 'mobile', null);
  const anonymous = (path: string, params: Record<string, string>) =>
    server.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(params).toString(),
    });
  return { ...server, app, rs, peer, publicClient, anonymous, tokens };
}

/** Introspection and revocation, the same on every store. */
export function tokenStatusSuite(t: Test, open: OpenStore): void {
  t.test('POST /oauth2/introspect (RFC 7662)', async (t) => {
    t.test('an active access token, with its claims', async (t) => {
      const { rs, tokens, app: client } = await setup(t, open);
      const { access_token } = await tokens();
      const res = await client.post('/oauth2/introspect', { token: access_token });
      t.equal(res.statusCode, 200);
      t.match(res.headers, NO_STORE_JSON);
      const claims = JSON.parse(Buffer.from(access_token.split('.')[1] as string, 'base64url').toString());
      t.same(await rs.introspect(access_token), {
        active: true,
        scope: 'read write',
        client_id: 'app',
        sub: 'user-alice',
        exp: claims.exp,
        iat: claims.iat,
        iss: ISSUER,
        aud: ISSUER,
        jti: claims.jti,
        token_type: 'bearer',
      });
    });

    t.test('inactive: expired, badly signed, malformed, unknown', async (t) => {
      const { rs, tokens, clock } = await setup(t, open);
      const { access_token } = await tokens();
      const [header, payload, signature] = access_token.split('.') as [string, string, string];
      const forgedPayload = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), scope: 'admin' }),
      ).toString('base64url');
      const { privateKey } = await generateKeyPair('ES256');
      const foreign = await new SignJWT({ client_id: 'app', scope: 'read' })
        .setProtectedHeader({ alg: 'ES256', kid: JSON.parse(Buffer.from(header, 'base64url').toString()).kid, typ: 'at+jwt' })
        .setIssuer(ISSUER)
        .setSubject('x')
        .setIssuedAt()
        .setExpirationTime('1h')
        .setJti('j')
        .sign(privateKey);
      for (const token of [
        `${header}.${forgedPayload}.${signature}`,
        foreign,
        'not-a-token',
        'a.b.c',
        `${'A'.repeat(22)}.${'B'.repeat(43)}`,
      ]) {
        t.same(await rs.introspect(token), { active: false }, token.slice(0, 20));
      }
      clock.now += 3601_000;
      t.same(await rs.introspect(access_token), { active: false }, 'expired');
    });

    t.test('a refresh token is active until rotated', async (t) => {
      const { app, tokens } = await setup(t, open);
      const { refresh_token } = await tokens();
      t.match(await app.introspect(refresh_token), { active: true, client_id: 'app', sub: 'user-alice', scope: 'read write', iss: ISSUER });
      const rotated = (await app.refresh(refresh_token)).json();
      t.same(await app.introspect(refresh_token), { active: false }, 'a rotated token is inactive');
      t.match(await app.introspect(rotated.refresh_token), { active: true });
    });

    t.test("another client's tokens are inactive to a caller without introspect_all_tokens (RFC 7662 §2.2)", async (t) => {
      const { app, rs, peer, tokens } = await setup(t, open);
      const { access_token, refresh_token } = await tokens();
      const peerToken = (await peer.token({ grant_type: 'client_credentials' })).json().access_token as string;
      const unknown = await peer.post('/oauth2/introspect', { token: `${refresh_token.split('.')[0]}.${'A'.repeat(43)}` });
      for (const [token, kind] of [
        [access_token, 'access token'],
        [refresh_token, 'refresh token'],
      ] as const) {
        const foreign = await peer.post('/oauth2/introspect', { token });
        t.equal(foreign.statusCode, 200, kind);
        t.match(foreign.headers, NO_STORE_JSON);
        t.equal(foreign.body, '{"active":false}', `${kind}: the same bytes as an unknown token`);
        t.equal(foreign.body, unknown.body);
        t.match(await app.introspect(token), { active: true, client_id: 'app', sub: 'user-alice' }, `${kind}: its own client sees it`);
      }
      t.match(
        await rs.introspect(access_token),
        { active: true, client_id: 'app', sub: 'user-alice', scope: 'read write' },
        'a resource server with introspect_all_tokens sees any access token',
      );
      t.equal(
        (await rs.post('/oauth2/introspect', { token: refresh_token })).body,
        '{"active":false}',
        "but never another client's refresh token (RFC 6749 §10.4)",
      );
      t.match(await peer.introspect(peerToken), { active: true, client_id: 'peer', sub: 'peer' }, 'a client sees its own token');
      t.same(await app.introspect(peerToken), { active: false }, "and not another client's");
      t.match(await rs.introspect(peerToken), { active: true, client_id: 'peer' });
    });

    t.test('callers must authenticate as a confidential client', async (t) => {
      const { publicClient, anonymous, tokens } = await setup(t, open);
      const { access_token } = await tokens();
      const viaPublic = await publicClient.post('/oauth2/introspect', { token: access_token });
      expectOAuthError(t, viaPublic, {
        status: 401,
        error: 'invalid_client',
        description: 'client authentication failed',
      });
      const none = await anonymous('/oauth2/introspect', { token: access_token });
      expectOAuthError(t, none, { status: 401, error: 'invalid_client', description: 'client authentication is required' });
    });
  });

  t.test('POST /oauth2/revoke (RFC 7009)', async (t) => {
    t.test('a refresh token revokes its family and the family access tokens', async (t) => {
      const { app, rs, tokens } = await setup(t, open);
      const { access_token, refresh_token } = await tokens();
      const rotated = (await app.refresh(refresh_token)).json();
      const res = await app.revoke(rotated.refresh_token, 'refresh_token');
      t.equal(res.statusCode, 200);
      t.equal(res.body, '');
      t.equal(res.headers['cache-control'], 'no-store');
      t.equal((await app.refresh(rotated.refresh_token)).statusCode, 400);
      t.same(await rs.introspect(rotated.access_token), { active: false });
      t.same(await rs.introspect(access_token), { active: false });
    });

    t.test('an access token is denylisted until it expires', async (t) => {
      const { app, rs, tokens } = await setup(t, open);
      const { access_token } = await tokens();
      t.equal((await app.revoke(access_token)).statusCode, 200);
      t.same(await rs.introspect(access_token), { active: false });
    });

    t.test("unknown tokens and another client's tokens: 200 and nothing happens", async (t) => {
      const { app, rs, tokens } = await setup(t, open);
      const { access_token, refresh_token } = await tokens();
      for (const token of ['garbage', access_token, refresh_token]) t.equal((await rs.revoke(token)).statusCode, 200);
      t.match(await rs.introspect(access_token), { active: true });
      t.equal((await app.refresh(refresh_token)).statusCode, 200);
    });

    t.test('the client must authenticate; token is required', async (t) => {
      const { app, anonymous, publicClient } = await setup(t, open);
      expectOAuthError(t, await anonymous('/oauth2/revoke', { token: 'x' }), {
        status: 401,
        error: 'invalid_client',
        description: 'client authentication is required',
      });
      expectOAuthError(t, await app.post('/oauth2/revoke', {}), {
        status: 400,
        error: 'invalid_request',
        description: "parameter 'token' is required",
      });
      t.equal((await publicClient.revoke('garbage')).statusCode, 200, 'a public client revokes with its client_id');
    });
  });

  t.test('a replayed authorization code kills its refresh family and its access tokens', async (t) => {
    const { app: fastify } = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), store: await open(t) });
    const web = new TokenClient(fastify, 'web', WEB_SECRET);
    const rs = new TokenClient(fastify, 'rs', WEB_SECRET);
    const { verifier, challenge } = pkcePair();
    const res = await signInAndDecide(
      new InjectBrowser(fastify),
      {
        response_type: 'code',
        client_id: 'web',
        redirect_uri: WEB_REDIRECT,
        scope: 'read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
      ALICE,
    );
    const code = redirectParams(res.headers.location as string).code as string;
    const redeem = () => web.token({ grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, code_verifier: verifier });
    const issued = (await redeem()).json();
    t.match(await rs.introspect(issued.access_token), { active: true });
    t.equal((await redeem()).statusCode, 400);
    t.same(await rs.introspect(issued.access_token), { active: false }, 'the access token is reported inactive');
    t.equal((await web.refresh(issued.refresh_token)).statusCode, 400, 'the refresh token is dead');
  });
}

import { readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { tokenHash } from '../../src/oidc/id-token.js';
import { WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { tempDir } from '../helpers/keys.js';
import { capturedLogger } from '../helpers/logs.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { ALICE_CLAIMS, codeFlow, ES256_REDIRECT, oidcServer, RESOURCE, verifiedIdToken } from '../helpers/oidc-fixtures.js';
import { basic, FORM_HEADERS, ISSUER, type TestServer } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * OpenID Connect on a store (run on memory and on Redis): ID tokens from the code (Core
 * §3.1.3.3) and from a refresh (§12.2), userinfo (§5.3) with the claims the scopes release
 * (§5.4), and the identity scopes beside a resource's.
 */

function refresh(server: TestServer, refreshToken: string, extra: Record<string, string> = {}, clientId = 'web') {
  return server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic(clientId, WEB_SECRET) },
    payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }).toString(),
  });
}

function userinfo(server: TestServer, token: string | undefined, method: 'GET' | 'POST' = 'GET') {
  return server.app.inject({
    method,
    url: '/oauth2/userinfo',
    headers: { ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}), ...(method === 'POST' ? FORM_HEADERS : {}) },
    ...(method === 'POST' ? { payload: '' } : {}),
  });
}

const PS256_REDIRECT = 'https://ps.example.com/cb';

/** A client whose ID tokens must be PS256: no server of this suite has a PS256 key. */
const PS256_CLIENT = {
  client_id: 'ps-client',
  client_secret_hash: hashClientSecret(WEB_SECRET),
  redirect_uris: [PS256_REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'read',
  id_token_signed_response_alg: 'PS256',
};

/** What the token endpoint answers when no key of the ID token's algorithm signs (docs/openid-connect.md#id-tokens). */
const NO_SIGNING_KEY = { status: 500, error: 'server_error', description: 'the authorization server encountered an unexpected condition' };

/** The error lines of a captured log: the message, and the error as the operator reads it (pino adds the cause). */
function errorLines(logs: ReturnType<typeof capturedLogger>): { msg: string; err: string | undefined }[] {
  return logs
    .lines()
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message?: string } })
    .filter((line) => line.level >= 50)
    .map((line) => ({ msg: line.msg, err: line.err?.message }));
}

/** Moves the key files of `alg`'s chain out of `keysDir` and reloads the keystore; puts them back and reloads when called. */
async function withoutChain(t: Test, server: TestServer, alg: string): Promise<() => Promise<void>> {
  const aside = await tempDir(t, 'oauth-keys-aside-');
  const names: string[] = [];
  for (const name of await readdir(server.keysDir)) {
    if ((JSON.parse(await readFile(join(server.keysDir, name), 'utf8')) as { alg: string }).alg !== alg) continue;
    await rename(join(server.keysDir, name), join(aside, name));
    names.push(name);
  }
  t.ok(names.length > 0 && (await server.keystore.reload()).ok, `the ${alg} chain is gone`);
  return async () => {
    for (const name of names) await rename(join(aside, name), join(server.keysDir, name));
    t.ok((await server.keystore.reload()).ok, `the ${alg} chain is back`);
  };
}

export function openidConnectSuite(t: Test, openStore: OpenStore): void {
  t.test('a code for scope openid: the token response carries an ID token (Core §3.1.3.3)', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const { response, body } = await codeFlow(server, { scope: 'openid profile email read', nonce: 'n-0S6_WzA2Mj', state: 's' });
    t.equal(response.statusCode, 200, response.body);
    t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    t.equal(body.scope, 'openid profile email read', 'the access token carries the identity scopes (no resource: it is for userinfo too)');
    const { alg, typ, claims } = await verifiedIdToken(server, body.id_token as string);
    t.same([alg, typ], ['RS256', 'JWT'], 'RS256 when the client says nothing (Registration §2)');
    const now = Math.floor(server.clock.now / 1000);
    t.same(
      { ...claims, sid: typeof claims.sid },
      {
        iss: ISSUER,
        sub: 'user-alice',
        aud: 'web',
        exp: now + 3600,
        iat: now,
        auth_time: now,
        nonce: 'n-0S6_WzA2Mj',
        at_hash: tokenHash(body.access_token as string, 'RS256'),
        azp: 'web',
        sid: 'string',
        amr: ['pwd'],
      },
      'no profile claims in the ID token: userinfo serves them',
    );
  });

  t.test('a code without openid gets no ID token', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const { response, body } = await codeFlow(server, { scope: 'read' });
    t.equal(response.statusCode, 200);
    t.notOk('id_token' in body);
  });

  t.test("a client's id_token_signed_response_alg signs its ID tokens (ES256)", async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const { body } = await codeFlow(server, { scope: 'openid read' }, { clientId: 'es-client', redirectUri: ES256_REDIRECT });
    const { alg, claims } = await verifiedIdToken(server, body.id_token as string);
    t.equal(alg, 'ES256');
    t.equal(claims.at_hash, tokenHash(body.access_token as string, 'ES256'));
  });

  t.test(
    'no key of the algorithm an ID token needs: server_error, no token at all (never another algorithm), the code spent',
    async (t) => {
      // ps-client asks for PS256 (the server has ES256 and RS256 chains); web says nothing, so
      // RS256 (the server has an ES256 chain alone, which still signs access tokens).
      for (const [clientId, redirectUri, alg, signingAlgorithms] of [
        ['ps-client', PS256_REDIRECT, 'PS256', ['ES256', 'RS256']],
        ['web', WEB_REDIRECT, 'RS256', ['ES256']],
      ] as const) {
        const logs = capturedLogger('info');
        const server = await oidcServer(t, { store: await openStore(t), clients: [PS256_CLIENT], signingAlgorithms, logger: logs.logger });
        const { response, redeemAgain } = await codeFlow(server, { scope: 'openid read', nonce: 'n' }, { clientId, redirectUri });
        expectOAuthError(t, response, NO_SIGNING_KEY);
        t.same(
          errorLines(logs),
          [
            {
              msg: 'server_error',
              err: `${NO_SIGNING_KEY.description}: no ${alg} key signs now: run "oauth2-token-service keys rotate --alg ${alg}"`,
            },
          ],
          `${clientId}: the log says which key is missing and how to make it; the client is told nothing more`,
        );
        // The code was consumed before the ID token was signed: a second try is a replay, and
        // revokes the grant (nothing was handed out from it).
        expectOAuthError(t, await redeemAgain(), {
          status: 400,
          error: 'invalid_grant',
          description: 'the authorization code was already used; the tokens issued from it are revoked',
        });
      }
    },
  );

  t.test('a refresh whose ID token has no key: server_error, and the refresh token is not spent', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const first = await codeFlow(server, { scope: 'openid read' });
    const refreshToken = first.body.refresh_token as string;
    const restore = await withoutChain(t, server, 'RS256');
    expectOAuthError(t, await refresh(server, refreshToken), NO_SIGNING_KEY);
    await restore();
    const res = await refresh(server, refreshToken);
    t.equal(res.statusCode, 200, 'the same refresh token once the key is back: it was never rotated');
    const body = res.json() as Record<string, string>;
    t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    t.equal((await verifiedIdToken(server, body.id_token as string)).alg, 'RS256');
  });

  t.test('a refresh returns a new ID token: same sub, auth_time and sid, a new iat, no nonce (Core §12.2)', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const first = await codeFlow(server, { scope: 'openid email read', nonce: 'first-nonce' });
    const original = (await verifiedIdToken(server, first.body.id_token as string)).claims;
    await server.advance(120);
    const res = await refresh(server, first.body.refresh_token as string);
    t.equal(res.statusCode, 200, res.body);
    const body = res.json() as Record<string, string>;
    const renewed = (await verifiedIdToken(server, body.id_token as string)).claims;
    t.same(
      { sub: renewed.sub, aud: renewed.aud, azp: renewed.azp, auth_time: renewed.auth_time, sid: renewed.sid, amr: renewed.amr },
      { sub: original.sub, aud: original.aud, azp: original.azp, auth_time: original.auth_time, sid: original.sid, amr: original.amr },
    );
    t.equal(renewed.iat, (original.iat as number) + 120, 'issued now');
    t.notOk('nonce' in renewed, 'no nonce on a refresh');
    t.equal(renewed.at_hash, tokenHash(body.access_token as string, 'RS256'), 'bound to the new access token');
  });

  t.test('userinfo releases the claims of the granted scopes (Core §5.3, §5.4), GET and POST', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const { body } = await codeFlow(server, { scope: 'openid profile email read' });
    for (const method of ['GET', 'POST'] as const) {
      const res = await userinfo(server, body.access_token as string, method);
      t.equal(res.statusCode, 200, `${method}: ${res.body}`);
      t.equal(res.headers['cache-control'], 'no-store');
      t.same(res.json(), {
        name: ALICE_CLAIMS.name,
        family_name: ALICE_CLAIMS.family_name,
        given_name: ALICE_CLAIMS.given_name,
        preferred_username: 'alice',
        updated_at: ALICE_CLAIMS.updated_at,
        email: ALICE_CLAIMS.email,
        email_verified: true,
        sub: 'user-alice',
      });
    }
    const openidOnly = await codeFlow(server, { scope: 'openid' });
    t.same((await userinfo(server, openidOnly.body.access_token as string)).json(), { sub: 'user-alice' }, 'openid alone: sub only');
    const everything = await codeFlow(server, { scope: 'openid address phone' });
    t.same((await userinfo(server, everything.body.access_token as string)).json(), {
      address: ALICE_CLAIMS.address,
      phone_number: ALICE_CLAIMS.phone_number,
      sub: 'user-alice',
    });
  });

  t.test('userinfo refuses with RFC 6750 challenges: no, foreign, revoked or expired tokens, and tokens without openid', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const { body } = await codeFlow(server, { scope: 'openid email read' });
    const token = body.access_token as string;
    const none = await userinfo(server, undefined);
    t.equal(none.statusCode, 401);
    t.match(
      none.headers['www-authenticate'],
      /^Bearer realm="https:\/\/as\.example\.com", DPoP realm="https:\/\/as\.example\.com", algs="/,
    );
    const forged = await userinfo(server, `${token.slice(0, -8)}AAAAAAAA`);
    t.equal(forged.statusCode, 401);
    t.match(forged.headers['www-authenticate'], /^Bearer realm="https:\/\/as\.example\.com", error="invalid_token", error_description="/);
    t.same(forged.json(), { error: 'invalid_token', error_description: 'the access token is invalid, expired or revoked' });

    const machine = await server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('service', WEB_SECRET) },
      payload: 'grant_type=client_credentials&scope=read',
    });
    const noOpenid = await userinfo(server, (machine.json() as { access_token: string }).access_token);
    t.equal(noOpenid.statusCode, 403);
    t.match(
      noOpenid.headers['www-authenticate'],
      /^Bearer realm="[^"]+", error="insufficient_scope", error_description="[^"]+", scope="openid"/,
    );
    t.same(noOpenid.json(), { error: 'insufficient_scope', error_description: 'the access token was not granted the openid scope' });

    const revoke = await server.app.inject({
      method: 'POST',
      url: '/oauth2/revoke',
      headers: { ...FORM_HEADERS, authorization: basic('web', WEB_SECRET) },
      payload: `token=${token}`,
    });
    t.equal(revoke.statusCode, 200);
    t.equal((await userinfo(server, token)).statusCode, 401, 'revoked');

    const other = await codeFlow(server, { scope: 'openid' });
    await server.advance(3601);
    t.equal((await userinfo(server, other.body.access_token as string)).statusCode, 401, 'expired');
  });

  t.test('identity scopes beside a resource: never held against it; the token is the resource’s, userinfo needs its own', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const flow = await codeFlow(server, { scope: 'openid email profile mcp:tools' }, { resources: [RESOURCE] });
    t.equal(flow.response.statusCode, 200, flow.response.body);
    t.equal(flow.body.scope, 'mcp:tools', 'the access token is for the MCP server: its scope there');
    const payload = JSON.parse(Buffer.from((flow.body.access_token as string).split('.')[1] as string, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    t.equal(payload.aud, RESOURCE);
    t.ok(flow.body.id_token, 'and the ID token says who signed in');
    const refused = await userinfo(server, flow.body.access_token as string);
    t.equal(refused.statusCode, 401);
    t.match(refused.json(), { error: 'invalid_token', error_description: /issued for another resource/ });
    // A token for userinfo: a refresh asking for identity scopes only, no resource.
    const forUserinfo = await refresh(server, flow.body.refresh_token as string, { scope: 'openid email' });
    t.equal(forUserinfo.statusCode, 200, forUserinfo.body);
    const identityToken = forUserinfo.json() as { access_token: string; scope: string };
    t.equal(identityToken.scope, 'openid email');
    t.same((await userinfo(server, identityToken.access_token)).json(), {
      email: ALICE_CLAIMS.email,
      email_verified: true,
      sub: 'user-alice',
    });
    const wider = await refresh(server, (forUserinfo.json() as { refresh_token: string }).refresh_token, { scope: 'openid phone' });
    t.equal(wider.statusCode, 400, 'never a scope the grant does not hold');
    t.equal((wider.json() as { error: string }).error, 'invalid_scope');
  });
}

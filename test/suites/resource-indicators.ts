import type { LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { ALICE, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { API, claimsOf, FILES, MCP, MCP_REDIRECT, RESOURCE_CLIENTS, RESOURCES, UNREGISTERED } from '../helpers/resource-fixtures.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';
import type { OpenStore, TestStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

/**
 * Resources carried by a grant (RFC 8707 §2.2): stored with the code, then with the
 * refresh family; each token request may narrow to a subset, never widen. The same on every store.
 */

/** A server on `store` (fresh by default) with the resource fixtures; `resources` replaces RESOURCES_FILE. */
async function setup(t: Test, store: TestStore, resources: unknown[] = RESOURCES) {
  const server = await buildTestServer(t, { clients: RESOURCE_CLIENTS, users: testUsers(), resources, store });
  const { verifier, challenge } = pkcePair();
  /** alice approves the public client `mcp` for `resources` (and `scope`); returns the code. */
  const newCode = async (resourceList: string[], scope?: string) => {
    const params = {
      response_type: 'code',
      client_id: 'mcp',
      redirect_uri: MCP_REDIRECT,
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...(scope ? { scope } : {}),
    };
    const res = await signInAndDecide(new InjectBrowser(server.app), params, ALICE, 'allow', resourceList);
    return redirectParams(res.headers.location as string).code as string;
  };
  /** The public client `mcp` (client_id in the body); then `web` and `app`, confidential. */
  const mcp = new TokenClient(server.app, 'mcp', null);
  const redeem = (code: string, ...resourceList: string[]) =>
    mcp.token({ grant_type: 'authorization_code', code, redirect_uri: MCP_REDIRECT, code_verifier: verifier }, resourceList);
  const refresh = (refreshToken: string, params: Record<string, string> = {}, ...resourceList: string[]) =>
    mcp.refresh(refreshToken, params, resourceList);
  const confidential = (clientId: string) => new TokenClient(server.app, clientId, WEB_SECRET);
  return { ...server, newCode, redeem, refresh, confidential };
}

/** The parts of a token response that tests compare. */
function issued(t: Test, res: LightMyRequestResponse) {
  t.equal(res.statusCode, 200, 'issued');
  const body = res.json();
  return {
    aud: claimsOf(body.access_token).aud,
    scope: body.scope as string | undefined,
    expiresIn: body.expires_in as number,
    refreshToken: body.refresh_token as string,
  };
}

const target = (description: string) => ({ status: 400, error: 'invalid_target', description });
const NOT_GRANTED = target('resource was not part of this authorization grant');

export function resourceIndicatorSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`resource indicators through a grant (${name})`, async (t) => {
    t.test('a code for two resources: without resource, a token for both; the refresh token keeps both', async (t) => {
      const { newCode, redeem, refresh } = await setup(t, await open(t));
      const code = await newCode([MCP, API], 'tools read');
      const first = issued(t, await redeem(code));
      t.same(first.aud, [MCP, API]);
      t.equal(first.scope, 'tools read');
      t.equal(first.expiresIn, 900, 'the shortest lifetime of the two');
      t.ok(first.refreshToken);

      const second = issued(t, await refresh(first.refreshToken));
      t.same([second.aud, second.scope], [[MCP, API], 'tools read']);
    });

    t.test('code redemption narrows to one resource, downscoped to what it accepts; refresh narrows to the other', async (t) => {
      const { newCode, redeem, refresh } = await setup(t, await open(t));
      const code = await newCode([MCP, API], 'tools read');
      const atApi = issued(t, await redeem(code, API));
      t.same([atApi.aud, atApi.scope, atApi.expiresIn], [API, 'read', 3600]);

      // RFC 8707 §2.2: "any refresh token that is returned is bound to the full original grant".
      const atMcp = issued(t, await refresh(atApi.refreshToken, {}, MCP));
      t.same([atMcp.aud, atMcp.scope, atMcp.expiresIn], [MCP, 'tools', 900]);
      const both = issued(t, await refresh(atMcp.refreshToken, { scope: 'read' }, API, MCP));
      t.same([both.aud, both.scope], [[API, MCP], 'read']);
      const whole = issued(t, await refresh(both.refreshToken));
      t.same([whole.aud, whole.scope], [[MCP, API], 'tools read'], 'narrowing a token never narrows the family');
    });

    t.test('a refresh for a resource outside the grant is invalid_target; nothing issued, the token still works', async (t) => {
      const { newCode, redeem, refresh } = await setup(t, await open(t));
      const { refreshToken } = issued(t, await redeem(await newCode([MCP])));
      expectOAuthError(t, await refresh(refreshToken, {}, API), NOT_GRANTED);
      expectOAuthError(t, await refresh(refreshToken, {}, MCP, FILES), NOT_GRANTED);
      expectOAuthError(t, await refresh(refreshToken, {}, UNREGISTERED), NOT_GRANTED);
      expectOAuthError(t, await refresh(refreshToken, {}, `${MCP}#x`), target('resource must not include a fragment (RFC 8707 section 2)'));
      expectOAuthError(t, await refresh(refreshToken, { scope: 'files:write' }, MCP), {
        status: 400,
        error: 'invalid_scope',
        description: 'scope not allowed for this client: files:write',
      });
      const next = issued(t, await refresh(refreshToken, {}, MCP));
      t.same([next.aud, next.scope], [MCP, 'tools files:read'], 'the refused requests rotated nothing');
    });

    t.test('a code redeemed for a resource outside the grant: invalid_target, no token', async (t) => {
      const { newCode, redeem } = await setup(t, await open(t));
      const code = await newCode([MCP], 'tools');
      const res = await redeem(code, API);
      expectOAuthError(t, res, NOT_GRANTED);
    });

    t.test('a code without resource gives tokens for ACCESS_TOKEN_AUDIENCE, and no resource can be added later', async (t) => {
      const { newCode, redeem, refresh } = await setup(t, await open(t));
      const first = issued(t, await redeem(await newCode([])));
      t.same([first.aud, first.scope, first.expiresIn], [ISSUER, undefined, 3600]);
      expectOAuthError(t, await refresh(first.refreshToken, {}, MCP), NOT_GRANTED);
    });

    t.test('a code stored before resource indicators keeps working, and so does the family it starts', async (t) => {
      const store = await open(t);
      const web = (await setup(t, store)).confidential('web');
      // A record as it was written before: no `resources` field (legacy refresh families
      // without one: test/redis/token.refresh-token.legacy.test.ts).
      const authTime = Math.floor(store.clock.now / 1000);
      const code = mintOpaqueToken(newGrantId());
      const codeRecord = {
        clientId: 'web',
        redirectUri: WEB_REDIRECT,
        redirectUriSent: true,
        scope: ['read'],
        sub: 'user-alice',
        authTime,
      };
      await store.store.saveAuthorizationCode(code.ref, { ...codeRecord, codeChallenge: undefined }, 60);

      const redeemed = issued(t, await web.token({ grant_type: 'authorization_code', code: code.value, redirect_uri: WEB_REDIRECT }));
      t.same([redeemed.aud, redeemed.scope], [ISSUER, 'read']);
      expectOAuthError(t, await web.refresh(redeemed.refreshToken, {}, [API]), NOT_GRANTED);
      const refreshed = issued(t, await web.refresh(redeemed.refreshToken));
      t.same([refreshed.aud, refreshed.scope], [ISSUER, 'read']);
    });

    t.test('the password grant stores its resources with the family', async (t) => {
      const app = (await setup(t, await open(t))).confidential('app');
      const first = issued(t, await app.token({ grant_type: 'password', username: ALICE.username, password: ALICE.password }, [MCP, API]));
      t.same([first.aud, first.scope], [[MCP, API], 'read write tools']);
      const narrowed = issued(t, await app.refresh(first.refreshToken, {}, [API]));
      t.same([narrowed.aud, narrowed.scope], [API, 'read write']);
      expectOAuthError(t, await app.refresh(narrowed.refreshToken, {}, [FILES]), NOT_GRANTED);
    });

    t.test('a resource the operator removes gets no new token from an earlier grant', async (t) => {
      const store = await open(t);
      const before = await setup(t, store);
      const { refreshToken } = issued(t, await before.redeem(await before.newCode([MCP, API], 'tools read')));
      // A second instance on the same store, whose RESOURCES_FILE no longer lists the MCP server.
      const after = await setup(
        t,
        store,
        RESOURCES.filter((r) => r.resource !== MCP),
      );
      const gone = target('resource is no longer registered at this authorization server');
      expectOAuthError(t, await after.refresh(refreshToken, {}, MCP), gone);
      expectOAuthError(t, await after.refresh(refreshToken), gone);
      const api = issued(t, await after.refresh(refreshToken, {}, API));
      t.same([api.aud, api.scope], [API, 'read']);
    });
  });
}

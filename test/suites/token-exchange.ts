import { createVerifier } from '@oauth2-token-service/verifier';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { UpstreamTokenVault } from '../../src/identity/token-vault.js';
import { ALICE, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { codeRequest, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { API, claimsOf, FILES, MCP, MCP_REDIRECT, RESOURCE_CLIENTS, RESOURCES } from '../helpers/resource-fixtures.js';
import { buildTestServer, FORM_HEADERS, ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

/** RFC 8693 token exchange at the token endpoint, the same on every store. */

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const UPSTREAM_SECRET = 'upstream-token-secret-0123456789abcdef';

/** The MCP server's own client: it exchanges the tokens sent to MCP for FILES, or for the user's GitHub token. */
const EXCHANGER = {
  client_id: 'mcp-server',
  client_secret_hash: hashClientSecret(WEB_SECRET),
  grant_types: [TOKEN_EXCHANGE],
  token_exchange: { subject_audiences: [MCP], target_resources: [FILES], upstream_providers: ['github'] },
};
/** The file service's client: it exchanges the tokens sent to FILES for API. */
const OTHER_EXCHANGER = {
  client_id: 'files-server',
  client_secret_hash: hashClientSecret(WEB_SECRET),
  grant_types: [TOKEN_EXCHANGE],
  token_exchange: { subject_audiences: [FILES], target_resources: [API] },
};

const PROVIDERS = [
  // Never reached but for a refresh, which fails: 127.0.0.1:9 (discard) refuses.
  {
    id: 'github',
    type: 'github',
    name: 'GitHub',
    client_id: 'gh',
    client_secret: 'gh-secret',
    base_url: 'http://127.0.0.1:9',
    api_url: 'http://127.0.0.1:9/api',
    keep_tokens: true,
  },
  { id: 'corp', type: 'oidc', name: 'Corp', issuer: 'http://127.0.0.1:9', client_id: 'c', client_secret: 's', keep_tokens: true },
];

export function tokenExchangeSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`token exchange (${name})`, async (t) => {
    async function setup(t: Test) {
      const server = await buildTestServer(t, {
        clients: [...RESOURCE_CLIENTS, EXCHANGER, OTHER_EXCHANGER],
        users: testUsers(),
        resources: RESOURCES,
        providers: PROVIDERS,
        env: { UPSTREAM_TOKEN_SECRET: UPSTREAM_SECRET },
        store: await open(t),
      });
      const { verifier, challenge } = pkcePair();
      /** alice approves the MCP client for MCP; the code. */
      const codeFor = async (scope: string) => {
        const res = await signInAndDecide(
          new InjectBrowser(server.app),
          codeRequest('mcp', MCP_REDIRECT, challenge, scope),
          ALICE,
          'allow',
          [MCP],
        );
        return redirectParams(res.headers.location as string).code as string;
      };
      /** The code's redemption by the MCP client (client_id in the body), with `headers` (a DPoP proof). */
      const redeem = (code: string, headers: Record<string, string> = {}) => {
        const body = new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: MCP_REDIRECT,
          code_verifier: verifier,
          client_id: 'mcp',
          resource: MCP,
        });
        return server.app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: { ...FORM_HEADERS, ...headers },
          payload: body.toString(),
        });
      };
      /** alice's token for MCP, as the MCP client gets it (with a refresh token and a grant). */
      const userToken = async (scope = 'tools files:read') => {
        const redeemed = await redeem(await codeFor(scope));
        t.equal(redeemed.statusCode, 200, 'the user token');
        return redeemed.json() as { access_token: string; refresh_token: string };
      };
      const exchanger = new TokenClient(server.app, 'mcp-server', WEB_SECRET);
      const exchange = (subjectToken: string, params: Record<string, string> = {}, resources: string[] = [FILES]) =>
        exchanger.token(
          { grant_type: TOKEN_EXCHANGE, subject_token: subjectToken, subject_token_type: ACCESS_TOKEN, ...params },
          resources,
        );
      return { server, userToken, codeFor, redeem, exchanger, exchange };
    }

    t.test(
      'a token sent to the MCP server becomes one for the downstream API: same sub, narrower scope, act, no longer life',
      async (t) => {
        const { server, userToken, exchanger, exchange } = await setup(t);
        const subject = await userToken();
        await server.advance(100);
        const res = await exchange(subject.access_token, { scope: 'files:read' });
        t.equal(res.statusCode, 200);
        t.equal(res.headers['cache-control'], 'no-store');
        const body = res.json() as Record<string, unknown>;
        t.same(
          Object.keys(body),
          ['access_token', 'issued_token_type', 'token_type', 'expires_in', 'scope'],
          'RFC 8693 §2.2.1, no refresh token',
        );
        t.same(
          { ...body, access_token: undefined },
          {
            access_token: undefined,
            issued_token_type: ACCESS_TOKEN,
            token_type: 'bearer',
            expires_in: 600,
            scope: 'files:read',
          },
          "FILES' own TTL (600 s): sooner than the subject token's end (800 s from now)",
        );
        const original = claimsOf(subject.access_token);
        const exchanged = claimsOf(body.access_token as string);
        t.same(
          {
            sub: exchanged.sub,
            aud: exchanged.aud,
            client_id: exchanged.client_id,
            scope: exchanged.scope,
            act: exchanged.act,
            grant_id: exchanged.grant_id,
            iss: exchanged.iss,
          },
          {
            sub: 'user-alice',
            aud: FILES,
            client_id: 'mcp-server',
            scope: 'files:read',
            act: { sub: 'mcp-server' },
            grant_id: original.grant_id,
            iss: ISSUER,
          },
        );
        t.ok((exchanged.exp as number) <= (original.exp as number), 'never outlives the subject token');
        const introspected = await exchanger.introspect(body.access_token as string);
        t.same(introspected.act, { sub: 'mcp-server' }, 'introspection shows the actor');
        t.equal(introspected.active, true);
      },
    );

    t.test("the downstream API's verifier accepts the exchanged token and sees act; the subject token it refuses", async (t) => {
      const { server, userToken, exchange } = await setup(t);
      await server.app.listen({ port: 0, host: '127.0.0.1' });
      const jwksUri = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}/.well-known/jwks.json`;
      const files = createVerifier({ issuer: ISSUER, resource: FILES, jwksUri, clock: () => server.clock.now, jwksCooldownSeconds: 0 });
      const subject = await userToken();
      const exchanged = (await exchange(subject.access_token)).json() as { access_token: string };
      const claims = await files.verify(exchanged.access_token, { requiredScopes: ['files:read'] });
      t.same([claims.sub, claims.client_id, claims.act], ['user-alice', 'mcp-server', { sub: 'mcp-server' }]);
      await t.rejects(files.verify(subject.access_token), { code: 'invalid_token' }, 'the MCP server may not pass the user token through');
    });

    t.test('the exchanged token expires with the subject token when that is sooner', async (t) => {
      const { server, userToken, exchange } = await setup(t);
      const subject = await userToken();
      await server.advance(850); // MCP tokens live 900 s: 50 s left
      const body = (await exchange(subject.access_token)).json() as Record<string, unknown>;
      t.equal(body.expires_in, 50);
      t.equal(claimsOf(body.access_token as string).exp, claimsOf(subject.access_token).exp);
      t.equal(body.scope, 'files:read', 'no scope: what the subject token has that the target offers');
    });

    t.test('an exchanged token exchanged again nests the earlier actor (RFC 8693 §4.1)', async (t) => {
      const { server, userToken, exchange } = await setup(t);
      const subject = await userToken();
      const first = (await exchange(subject.access_token)).json() as { access_token: string };
      const files = new TokenClient(server.app, 'files-server', WEB_SECRET);
      const exchangeAgain = (token: string) =>
        files.token({ grant_type: TOKEN_EXCHANGE, subject_token: token, subject_token_type: ACCESS_TOKEN }, [API]);
      const second = await exchangeAgain(first.access_token);
      t.equal(second.statusCode, 200);
      const claims = claimsOf((second.json() as { access_token: string }).access_token);
      t.same(
        { sub: claims.sub, aud: claims.aud, act: claims.act, scope: claims.scope },
        {
          sub: 'user-alice',
          aud: API,
          act: { sub: 'files-server', act: { sub: 'mcp-server' } },
          scope: undefined,
        },
        'no scope in common: a token without scope',
      );
      // The user's own token was sent to MCP, not FILES: files-server may not exchange it.
      expectOAuthError(t, await exchangeAgain(subject.access_token), {
        status: 400,
        error: 'invalid_request',
        description: "subject_token was not issued for an audience this client's token_exchange policy accepts",
      });
    });

    t.test('refused: widening scope, a target outside the policy, another audience, a revoked subject, bad parameters', async (t) => {
      const { server, userToken, exchange } = await setup(t);
      const subject = await userToken('tools');
      expectOAuthError(t, await exchange(subject.access_token, { scope: 'files:read' }), {
        status: 400,
        error: 'invalid_scope',
        description: 'scope not allowed for this client: files:read',
      });
      expectOAuthError(t, await exchange(subject.access_token, {}, [API]), {
        status: 400,
        error: 'invalid_target',
        description: "the target is not among this client's token_exchange target_resources",
      });
      expectOAuthError(t, await exchange(subject.access_token, { audience: 'https://elsewhere.example.com/' }, []), {
        status: 400,
        error: 'invalid_target',
        description: "the target is not among this client's token_exchange target_resources",
      });
      expectOAuthError(t, await exchange(subject.access_token, { audience: FILES }, [FILES]), {
        status: 400,
        error: 'invalid_target',
        description: 'name the target with resource or audience, not both',
      });
      expectOAuthError(t, await exchange(subject.access_token, {}, [FILES, API]), {
        status: 400,
        error: 'invalid_target',
        description: 'name exactly one target: one resource',
      });
      expectOAuthError(t, await exchange(subject.access_token, {}, []), {
        status: 400,
        error: 'invalid_request',
        description: 'resource or audience is required: the API the new token is for',
      });
      expectOAuthError(
        t,
        await exchange(subject.access_token, { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }),
        {
          status: 400,
          error: 'invalid_request',
          description: 'requested_token_type must be urn:ietf:params:oauth:token-type:access_token: this server issues access tokens',
        },
      );
      expectOAuthError(t, await exchange(subject.access_token, { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }), {
        status: 400,
        error: 'invalid_request',
        description: 'subject_token_type must be urn:ietf:params:oauth:token-type:access_token',
      });
      expectOAuthError(t, await exchange('not-a-token'), {
        status: 400,
        error: 'invalid_request',
        description: 'subject_token is not an active access token of this server',
      });
      const client = await new TokenClient(server.app, 'robot', WEB_SECRET).token({ grant_type: 'client_credentials', scope: 'read' }, [
        API,
      ]);
      expectOAuthError(t, await exchange((client.json() as { access_token: string }).access_token), {
        status: 400,
        error: 'invalid_request',
        description: "subject_token was not issued for an audience this client's token_exchange policy accepts",
      });
      await server.store.revokeKnownGrant(claimsOf(subject.access_token).grant_id as string, 3600);
      expectOAuthError(t, await exchange(subject.access_token), {
        status: 400,
        error: 'invalid_request',
        description: 'subject_token is not an active access token of this server',
      });
    });

    t.test("revoking the user's grant ends the exchanged tokens", async (t) => {
      const { server, userToken, exchanger, exchange } = await setup(t);
      const subject = await userToken();
      const exchanged = (await exchange(subject.access_token)).json() as { access_token: string };
      await server.store.revokeKnownGrant(claimsOf(subject.access_token).grant_id as string, 3600);
      t.same(await exchanger.introspect(exchanged.access_token), { active: false });
    });

    t.test('only a client of CLIENTS_FILE with the grant and a policy exchanges', async (t) => {
      const { server, userToken } = await setup(t);
      const subject = await userToken();
      const res = await new TokenClient(server.app, 'robot', WEB_SECRET).token(
        { grant_type: TOKEN_EXCHANGE, subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN },
        [FILES],
      );
      expectOAuthError(t, res, {
        status: 400,
        error: 'unauthorized_client',
        description: `this client is not registered for grant_type ${TOKEN_EXCHANGE}`,
      });
    });

    t.test('a DPoP-bound subject token is exchanged only with a proof of its key; the new token is bound to it', async (t) => {
      const { server, exchanger, codeFor, redeem } = await setup(t);
      const key = await dpopKey();
      const proof = async () => dpopProof(key, { htm: 'POST', htu: `${ISSUER}/oauth2/token`, iat: Math.floor(server.clock.now / 1000) });
      // The MCP client redeems its code with a proof: its token is bound.
      const bound = await redeem(await codeFor('files:read'), { dpop: await proof() });
      const subject = (bound.json() as { access_token: string }).access_token;
      t.ok(claimsOf(subject).cnf);
      const exchangeBody = new URLSearchParams({
        grant_type: TOKEN_EXCHANGE,
        subject_token: subject,
        subject_token_type: ACCESS_TOKEN,
        resource: FILES,
      });
      expectOAuthError(t, await exchanger.post('/oauth2/token', Object.fromEntries(exchangeBody)), {
        status: 400,
        error: 'invalid_request',
        description: 'subject_token is bound to a DPoP key: send a DPoP proof signed with that key',
      });
      const other = await dpopKey();
      const wrongProof = await dpopProof(other, { htm: 'POST', htu: `${ISSUER}/oauth2/token`, iat: Math.floor(server.clock.now / 1000) });
      const headers = {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`mcp-server:${WEB_SECRET}`).toString('base64')}`,
      };
      const refused = await server.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...headers, dpop: wrongProof },
        payload: exchangeBody.toString(),
      });
      t.equal((refused.json() as { error: string }).error, 'invalid_request');
      const ok = await server.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...headers, dpop: await proof() },
        payload: exchangeBody.toString(),
      });
      t.equal(ok.statusCode, 200);
      const exchanged = ok.json() as { access_token: string; token_type: string };
      t.equal(exchanged.token_type, 'DPoP');
      t.same(claimsOf(exchanged.access_token).cnf, claimsOf(subject).cnf);
    });

    t.test("audience=upstream:<provider>: the user's upstream token the grant keeps, never another's", async (t) => {
      const { server, userToken, exchange } = await setup(t);
      const subject = await userToken();
      const grantId = claimsOf(subject.access_token).grant_id as string;
      expectOAuthError(t, await exchange(subject.access_token, { audience: 'upstream:github' }, []), {
        status: 400,
        error: 'invalid_grant',
        description: 'the user holds no token of github here: they did not sign in through it, or it can no longer be refreshed',
      });
      const vault = new UpstreamTokenVault(server.store.upstream, UPSTREAM_SECRET, () => server.clock.now);
      const now = Math.floor(server.clock.now / 1000);
      await vault.keepForSession(
        'sid',
        {
          provider: 'github',
          tokens: { accessToken: 'gho_upstream', refreshToken: 'ghr_upstream', expiresAt: now + 3600, scope: 'read:user' },
        },
        600,
      );
      await vault.bindToGrant('sid', grantId, 3600);
      const res = await exchange(subject.access_token, { audience: 'upstream:github' }, []);
      t.equal(res.statusCode, 200);
      t.same(res.json(), {
        access_token: 'gho_upstream',
        issued_token_type: ACCESS_TOKEN,
        token_type: 'bearer',
        expires_in: 3600,
        scope: 'read:user',
      });
      expectOAuthError(t, await exchange(subject.access_token, { audience: 'upstream:corp' }, []), {
        status: 400,
        error: 'invalid_target',
        description: "the identity provider is not among this client's token_exchange upstream_providers",
      });
      expectOAuthError(t, await exchange(subject.access_token, { audience: 'upstream:nowhere' }, []), {
        status: 400,
        error: 'invalid_target',
        description: "the identity provider is not among this client's token_exchange upstream_providers",
      });
      // Expired, and the provider cannot refresh it (unreachable): not handed out.
      await vault.keepForSession(
        'sid-2',
        { provider: 'github', tokens: { accessToken: 'gho_short', refreshToken: 'ghr_short', expiresAt: now + 60 } },
        600,
      );
      const second = await userToken();
      await vault.bindToGrant('sid-2', claimsOf(second.access_token).grant_id as string, 3600);
      await server.advance(100);
      expectOAuthError(t, await exchange(second.access_token, { audience: 'upstream:github' }, []), {
        status: 400,
        error: 'invalid_grant',
        description: 'the user holds no token of github here: they did not sign in through it, or it can no longer be refreshed',
      });
    });
  });
}

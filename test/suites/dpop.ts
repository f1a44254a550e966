import { decodeJwt } from 'jose';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { dpopKey, dpopProof, type DpopKey, type ProofClaims, unsignedProof } from '../helpers/dpop.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

export const TOKEN_ENDPOINT = `${ISSUER}/oauth2/token`;
export const NATIVE_REDIRECT = 'https://native.example.com/cb';

const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  {
    client_id: 'bound-service',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['client_credentials'],
    scope: 'read',
    dpop_bound_access_tokens: true,
  },
  { client_id: 'app', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read' },
  { client_id: 'mobile', grant_types: ['password', 'refresh_token'], scope: 'read', token_endpoint_auth_method: 'none' },
  {
    client_id: 'native',
    redirect_uris: [NATIVE_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read',
    token_endpoint_auth_method: 'none',
  },
];

export type DpopTestServer = Awaited<ReturnType<typeof setup>>;

/** A server with DPoP clients; `token` posts to the token endpoint with optional DPoP header(s). */
export async function setup(t: Test, open: OpenStore, env: Record<string, string> = {}) {
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), store: await open(t), env });
  const now = () => Math.floor(server.clock.now / 1000);
  /** `client: [id, secret]` authenticates with Basic; a string is a public client's client_id. */
  const token = (params: Record<string, string>, client: [string, string] | string, dpop?: string | string[]) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: {
        ...FORM_HEADERS,
        ...(Array.isArray(client) ? { authorization: basic(client[0], client[1]) } : {}),
        ...(dpop !== undefined ? { dpop } : {}),
      },
      payload: new URLSearchParams({ ...params, ...(typeof client === 'string' ? { client_id: client } : {}) }).toString(),
    });
  const proof = (key: DpopKey, claims: Partial<ProofClaims> = {}, header: Record<string, unknown> = {}) =>
    dpopProof(key, { htu: TOKEN_ENDPOINT, iat: now(), ...claims }, header);
  const service: [string, string] = ['service', WEB_SECRET];
  const clientCredentials = (dpop?: string | string[], client = service) => token({ grant_type: 'client_credentials' }, client, dpop);
  const password = (client: [string, string] | string, dpop?: string) =>
    token({ grant_type: 'password', username: ALICE.username, password: ALICE.password }, client, dpop);
  const refresh = (refreshToken: string, client: [string, string] | string, dpop?: string) =>
    token({ grant_type: 'refresh_token', refresh_token: refreshToken }, client, dpop);
  const introspect = async (accessToken: string) =>
    (
      await server.app.inject({
        method: 'POST',
        url: '/oauth2/introspect',
        headers: { ...FORM_HEADERS, authorization: basic(...service) },
        payload: new URLSearchParams({ token: accessToken }).toString(),
      })
    ).json();
  return { ...server, now, token, proof, clientCredentials, password, refresh, introspect };
}

const expectInvalidProof = (t: Test, res: InjectedResponse, description: string) =>
  expectOAuthError(t, res, { status: 400, error: 'invalid_dpop_proof', description });
const expectInvalidGrant = (t: Test, res: InjectedResponse, description: string) =>
  expectOAuthError(t, res, { status: 400, error: 'invalid_grant', description });

const BOUND_REFRESH = 'the refresh token is bound to a DPoP key: send a DPoP proof made with that key';

/** RFC 9449 at the token endpoint, the same on every store. */
export function dpopTokenEndpointSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`POST /oauth2/token with DPoP (${name})`, async (t) => {
    t.test('client_credentials with a proof: a DPoP token bound by cnf.jkt; introspection says so (§5, §6)', async (t) => {
      const { clientCredentials, proof, introspect } = await setup(t, open);
      const key = await dpopKey();
      const res = await clientCredentials(await proof(key));
      t.equal(res.statusCode, 200);
      t.match(res.headers, NO_STORE_JSON);
      t.equal(res.headers['dpop-nonce'], undefined, 'no nonce unless DPOP_REQUIRE_NONCE');
      const body = res.json();
      t.equal(body.token_type, 'DPoP');
      t.same(decodeJwt(body.access_token).cnf, { jkt: key.jkt });
      t.match(await introspect(body.access_token), { active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });

      const bearer = (await clientCredentials()).json();
      t.equal(bearer.token_type, 'bearer', 'without a proof: a bearer token');
      t.equal(decodeJwt(bearer.access_token).cnf, undefined);
      const introspected = await introspect(bearer.access_token);
      t.equal(introspected.token_type, 'bearer');
      t.equal(introspected.cnf, undefined);
    });

    t.test('a replayed proof is invalid_dpop_proof; so are two DPoP headers', async (t) => {
      const { clientCredentials, proof } = await setup(t, open);
      const key = await dpopKey();
      const once = await proof(key);
      t.equal((await clientCredentials(once)).statusCode, 200);
      expectInvalidProof(t, await clientCredentials(once), 'the DPoP proof was already used');
      expectInvalidProof(t, await clientCredentials([await proof(key), await proof(key)]), 'more than one DPoP header');
    });

    t.test('20 concurrent requests with one proof: exactly one token', async (t) => {
      const { clientCredentials, proof } = await setup(t, open);
      const once = await proof(await dpopKey());
      const results = await Promise.all(Array.from({ length: 20 }, () => clientCredentials(once)));
      t.equal(results.filter((r) => r.statusCode === 200).length, 1);
      t.same(
        new Set(results.filter((r) => r.statusCode !== 200).map((r) => r.json().error_description)),
        new Set(['the DPoP proof was already used']),
      );
    });

    t.test('§4.3: wrong htu or htm, stale iat, alg none, HS256, a private key in jwk', async (t) => {
      const { clientCredentials, proof, now } = await setup(t, open);
      const key = await dpopKey();
      const cases: [string, Promise<string>, string][] = [
        [
          'htu of another endpoint',
          proof(key, { htu: `${ISSUER}/oauth2/introspect` }),
          'the DPoP proof htu does not match the request URI',
        ],
        [
          'htu of another host',
          proof(key, { htu: 'https://evil.example.com/oauth2/token' }),
          'the DPoP proof htu does not match the request URI',
        ],
        ['htm GET', proof(key, { htm: 'GET' }), 'the DPoP proof htm does not match the request method'],
        ['iat 61 s old', proof(key, { iat: now() - 61 }), 'the DPoP proof iat is outside the acceptable window'],
        ['iat 61 s ahead', proof(key, { iat: now() + 61 }), 'the DPoP proof iat is outside the acceptable window'],
        [
          'alg none',
          Promise.resolve(`${unsignedProof(key.publicJwk, { jti: 'n', htm: 'POST', htu: TOKEN_ENDPOINT, iat: now() })}AAAA`),
          'the DPoP proof alg is not accepted',
        ],
        ['private key in jwk', proof(key, {}, { jwk: key.privateJwk }), 'the jwk header must not contain a private key'],
        ['typ JWT', proof(key, {}, { typ: 'JWT' }), 'the DPoP proof typ must be dpop+jwt'],
      ];
      for (const [what, forged, description] of cases) {
        t.test(what, async (t) => expectInvalidProof(t, await clientCredentials(await forged), description));
      }
      const { SignJWT } = await import('jose');
      const hs256 = await new SignJWT({ jti: 'h', htm: 'POST', htu: TOKEN_ENDPOINT, iat: now() })
        .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.publicJwk })
        .sign(new TextEncoder().encode('a-shared-secret-a-shared-secret-0123'));
      expectInvalidProof(t, await clientCredentials(hs256), 'the DPoP proof alg is not accepted');
    });

    t.test('DPOP_PROOF_WINDOW bounds iat; the proof is remembered for the whole window', async (t) => {
      const { clientCredentials, proof, now, advance } = await setup(t, open, { DPOP_PROOF_WINDOW: '5' });
      const key = await dpopKey();
      expectInvalidProof(
        t,
        await clientCredentials(await proof(key, { iat: now() - 6 })),
        'the DPoP proof iat is outside the acceptable window',
      );
      const early = await proof(key, { iat: now() + 5 });
      t.equal((await clientCredentials(early)).statusCode, 200, 'iat at the far edge of the window');
      await advance(9);
      expectInvalidProof(t, await clientCredentials(early), 'the DPoP proof was already used');
    });

    t.test('DPOP_REQUIRE_NONCE: use_dpop_nonce with DPoP-Nonce, then a token with a fresh nonce (§8)', async (t) => {
      const { clientCredentials, proof, advance } = await setup(t, open, {
        DPOP_REQUIRE_NONCE: 'true',
        SESSION_SECRET: 'a-session-secret-0123456789abcdefghij',
      });
      const key = await dpopKey();
      const first = await clientCredentials(await proof(key));
      const nonce = first.headers['dpop-nonce'] as string;
      t.match(nonce, /^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
      expectOAuthError(t, first, {
        status: 400,
        error: 'use_dpop_nonce',
        description: 'the authorization server requires a DPoP nonce: use the one in the DPoP-Nonce header',
        headers: { 'dpop-nonce': nonce },
      });
      const ok = await clientCredentials(await proof(key, { nonce }));
      t.equal(ok.statusCode, 200);
      t.equal(ok.json().token_type, 'DPoP');
      t.equal(ok.headers['dpop-nonce'], nonce, 'the current nonce on success too');
      await advance(121);
      const stale = await clientCredentials(await proof(key, { nonce }));
      t.equal(stale.json().error, 'use_dpop_nonce', 'a nonce two steps old is refused');
      t.not(stale.headers['dpop-nonce'], nonce, 'with a new one');
    });

    t.test('dpop_bound_access_tokens: a proof is mandatory for that client (§5.2)', async (t) => {
      const { clientCredentials, proof } = await setup(t, open);
      const bound: [string, string] = ['bound-service', WEB_SECRET];
      expectInvalidProof(t, await clientCredentials(undefined, bound), 'this client must send a DPoP proof (dpop_bound_access_tokens)');
      t.equal((await clientCredentials(await proof(await dpopKey()), bound)).json().token_type, 'DPoP');
    });

    t.test("refresh: a public client's family is bound to its first proof's key (§5)", async (t) => {
      const { password, refresh, proof } = await setup(t, open, { REFRESH_REUSE_GRACE: '0' });
      const key = await dpopKey();
      const other = await dpopKey();
      const first = (await password('mobile', await proof(key))).json();
      t.equal(first.token_type, 'DPoP');
      expectInvalidGrant(t, await refresh(first.refresh_token, 'mobile'), BOUND_REFRESH);
      expectInvalidGrant(t, await refresh(first.refresh_token, 'mobile', await proof(other)), BOUND_REFRESH);
      const second = await refresh(first.refresh_token, 'mobile', await proof(key));
      t.equal(second.statusCode, 200, 'the same key refreshes');
      t.same(decodeJwt(second.json().access_token).cnf, { jkt: key.jkt });
      expectInvalidGrant(t, await refresh(second.json().refresh_token, 'mobile', await proof(other)), BOUND_REFRESH);
    });

    t.test('refresh: the grace window applies again to a DPoP-bound public family', async (t) => {
      const { password, refresh, proof } = await setup(t, open, { REFRESH_REUSE_GRACE: '10' });
      const key = await dpopKey();
      const first = (await password('mobile', await proof(key))).json();
      const rotated = (await refresh(first.refresh_token, 'mobile', await proof(key))).json();
      const retry = await refresh(first.refresh_token, 'mobile', await proof(key));
      t.equal(retry.statusCode, 200);
      t.same(retry.json(), rotated, 'the same successor');
      const unbound = (await password('mobile')).json();
      await refresh(unbound.refresh_token, 'mobile');
      expectInvalidGrant(
        t,
        await refresh(unbound.refresh_token, 'mobile'),
        'the refresh token was already used: every token of this grant is now revoked',
      );
    });

    t.test("refresh: a confidential client's family stays bound by client authentication", async (t) => {
      const { password, refresh, proof } = await setup(t, open);
      const app: [string, string] = ['app', WEB_SECRET];
      const first = (await password(app, await proof(await dpopKey()))).json();
      t.equal(first.token_type, 'DPoP');
      const plain = await refresh(first.refresh_token, app);
      t.equal(plain.json().token_type, 'bearer', 'refreshed without a proof: a bearer token');
      const other = await dpopKey();
      const bound = await refresh(plain.json().refresh_token, app, await proof(other));
      t.same(decodeJwt(bound.json().access_token).cnf, { jkt: other.jkt }, 'bound to the key of this proof');
    });

    t.test('dpop_jkt binds the authorization code to a key (§10)', async (t) => {
      const server = await setup(t, open);
      const key = await dpopKey();
      const { verifier, challenge } = pkcePair();
      const request = {
        response_type: 'code',
        client_id: 'native',
        redirect_uri: NATIVE_REDIRECT,
        scope: 'read',
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        dpop_jkt: key.jkt,
      };
      const newCode = async () =>
        redirectParams((await signInAndDecide(new InjectBrowser(server.app), request, ALICE)).headers.location as string).code as string;
      const redeem = async (code: string, dpop?: string) =>
        server.token({ grant_type: 'authorization_code', code, redirect_uri: NATIVE_REDIRECT, code_verifier: verifier }, 'native', dpop);
      const mismatch = 'the authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof made with that key';
      expectInvalidGrant(t, await redeem(await newCode()), mismatch);
      expectInvalidGrant(t, await redeem(await newCode(), await server.proof(await dpopKey())), mismatch);
      const ok = await redeem(await newCode(), await server.proof(key));
      t.equal(ok.statusCode, 200);
      t.same(decodeJwt(ok.json().access_token).cnf, { jkt: key.jkt });
      expectInvalidGrant(t, await server.refresh(ok.json().refresh_token, 'native', await server.proof(await dpopKey())), BOUND_REFRESH);

      const malformed = await server.app.inject({ method: 'GET', url: authorizeUrl({ ...request, dpop_jkt: 'short' }) });
      t.equal(malformed.statusCode, 302, 'the error goes back to the client');
      t.match(redirectParams(malformed.headers.location as string), {
        error: 'invalid_request',
        error_description: 'dpop_jkt must be the base64url SHA-256 JWK thumbprint of the DPoP key',
      });
    });
  });
}

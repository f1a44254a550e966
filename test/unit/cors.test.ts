import type { Test } from 'tap';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { basic, buildTestServer, FORM_HEADERS, form } from '../helpers/server.js';

const SPA = 'https://spa.example.com';
const EXTRA = 'https://extra.example.com';
const CONSOLE = 'https://console.example.com';
const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';

const CLIENTS = [
  // A public client: the origin of its redirect URI may call.
  {
    client_id: 'spa',
    redirect_uris: [`${SPA}/cb`],
    grant_types: ['authorization_code'],
    scope: 'read',
    token_endpoint_auth_method: 'none',
  },
  // A public client served from somewhere else than its redirect URI.
  {
    client_id: 'widget',
    redirect_uris: ['com.example.widget:/cb'],
    allowed_origins: [EXTRA],
    grant_types: ['authorization_code'],
    scope: 'read',
    token_endpoint_auth_method: 'none',
  },
  // A confidential client: its redirect URI's origin allows nothing, its allowed_origins do.
  {
    client_id: 'web',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    redirect_uris: [`${APP}/callback`],
    allowed_origins: [CONSOLE],
    grant_types: ['authorization_code', 'client_credentials'],
    scope: 'read',
    introspect_all_tokens: true,
  },
];

/** Every CORS header of a response, and Vary: what the browser decides on. */
function corsHeadersOf(res: InjectedResponse): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(res.headers).filter(
      ([name, value]) => name.startsWith('access-control-') || (name === 'vary' && /origin/i.test(String(value))),
    ),
  );
}

const ALLOWED_PREFLIGHT = (origin: string) => ({
  'access-control-allow-origin': origin,
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'Content-Type, Authorization, DPoP',
  'access-control-max-age': '600',
  vary: 'Origin',
});
const ALLOWED_RESPONSE = (origin: string) => ({
  'access-control-allow-origin': origin,
  'access-control-expose-headers': 'WWW-Authenticate, DPoP-Nonce',
  vary: 'Origin',
});

t.test('CORS', async (t) => {
  const { app } = await buildTestServer(t, { clients: CLIENTS, users: testUsers() });
  const preflight = (path: string, headers: Record<string, string>) => app.inject({ method: 'OPTIONS', url: path, headers });
  const post = (path: string, origin: string | undefined, params: Record<string, string>, authorization?: string) =>
    app.inject({
      method: 'POST',
      url: path,
      headers: { ...FORM_HEADERS, ...(origin ? { origin } : {}), ...(authorization ? { authorization } : {}) },
      payload: form(params),
    });
  const expectNoCors = (t: Test, res: InjectedResponse) => t.same(corsHeadersOf(res), {}, 'no CORS headers');
  const codeFor = async (clientId: string) => {
    const { verifier, challenge } = pkcePair();
    const params = { response_type: 'code', client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' };
    const res = await signInAndDecide(new InjectBrowser(app), params, ALICE);
    return { code: redirectParams(res.headers.location as string).code as string, verifier };
  };

  t.test('preflight at the token and revocation endpoints', async (t) => {
    const request = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };
    for (const path of ['/oauth2/token', '/oauth2/revoke']) {
      t.test(`${path}: an origin some client allows`, async (t) => {
        for (const origin of [SPA, EXTRA, CONSOLE]) {
          const res = await preflight(path, { origin, ...request });
          t.equal(res.statusCode, 204, origin);
          t.equal(res.headers.allow, 'OPTIONS, POST');
          t.same(corsHeadersOf(res), ALLOWED_PREFLIGHT(origin), origin);
          t.equal(res.body, '');
        }
      });
      t.test(`${path}: any other OPTIONS is answered without CORS headers`, async (t) => {
        for (const headers of [
          { origin: EVIL, ...request },
          { origin: APP, ...request }, // the redirect URI of a confidential client
          { origin: 'null', ...request },
          { origin: `${SPA}:443`, ...request },
          { origin: SPA }, // not a preflight: no Access-Control-Request-Method
          {},
        ]) {
          const res = await preflight(path, headers);
          t.equal(res.statusCode, 204, JSON.stringify(headers));
          t.equal(res.headers.allow, 'OPTIONS, POST');
          expectNoCors(t, res);
        }
      });
    }
  });

  t.test('token endpoint: the answer is readable by the origins of the authenticated client', async (t) => {
    t.test('a public client redeems its code from its redirect URI origin', async (t) => {
      const { code, verifier } = await codeFor('spa');
      const res = await post('/oauth2/token', SPA, { grant_type: 'authorization_code', client_id: 'spa', code, code_verifier: verifier });
      t.equal(res.statusCode, 200);
      t.same(corsHeadersOf(res), ALLOWED_RESPONSE(SPA));
      t.equal(res.headers['access-control-allow-credentials'], undefined);
    });

    t.test('and reads its errors: invalid_grant, invalid_request, unsupported_grant_type', async (t) => {
      const badCode = await post('/oauth2/token', SPA, { grant_type: 'authorization_code', client_id: 'spa', code: 'x.y' });
      expectOAuthError(t, badCode, { status: 400, error: 'invalid_grant' });
      t.same(corsHeadersOf(badCode), ALLOWED_RESPONSE(SPA));
      const missing = await post('/oauth2/token', EXTRA, { grant_type: 'authorization_code', client_id: 'widget' });
      expectOAuthError(t, missing, { status: 400, error: 'invalid_request', description: "parameter 'code' is required" });
      t.same(corsHeadersOf(missing), ALLOWED_RESPONSE(EXTRA));
      const unknownGrant = await post('/oauth2/token', SPA, { grant_type: 'urn:example:magic', client_id: 'spa' });
      expectOAuthError(t, unknownGrant, { status: 400, error: 'unsupported_grant_type' });
      t.same(corsHeadersOf(unknownGrant), ALLOWED_RESPONSE(SPA));
    });

    t.test('a confidential client from one of its allowed_origins', async (t) => {
      const res = await post('/oauth2/token', CONSOLE, { grant_type: 'client_credentials' }, basic('web', WEB_SECRET));
      t.equal(res.statusCode, 200);
      t.same(corsHeadersOf(res), ALLOWED_RESPONSE(CONSOLE));
    });

    t.test('no CORS headers for an origin the client does not allow, even one another client allows', async (t) => {
      for (const origin of [EVIL, EXTRA, CONSOLE, APP]) {
        const res = await post('/oauth2/token', origin, { grant_type: 'authorization_code', client_id: 'spa', code: 'x.y' });
        expectOAuthError(t, res, { status: 400, error: 'invalid_grant' });
        expectNoCors(t, res);
      }
      const confidential = await post('/oauth2/token', APP, { grant_type: 'client_credentials' }, basic('web', WEB_SECRET));
      t.equal(confidential.statusCode, 200);
      expectNoCors(t, confidential);
      const noOrigin = await post('/oauth2/token', undefined, { grant_type: 'client_credentials' }, basic('web', WEB_SECRET));
      expectNoCors(t, noOrigin);
    });

    t.test('no CORS headers before the client is authenticated', async (t) => {
      const wrongSecret = await post('/oauth2/token', CONSOLE, { grant_type: 'client_credentials' }, basic('web', 'wrong'));
      expectOAuthError(t, wrongSecret, { status: 401, error: 'invalid_client' });
      expectNoCors(t, wrongSecret);
      const publicWithSecret = await post('/oauth2/token', SPA, { grant_type: 'client_credentials', client_id: 'spa', client_secret: 'x' });
      expectOAuthError(t, publicWithSecret, { status: 401, error: 'invalid_client' });
      expectNoCors(t, publicWithSecret);
      const noClient = await post('/oauth2/token', SPA, { grant_type: 'authorization_code', code: 'x.y' });
      expectOAuthError(t, noClient, { status: 401, error: 'invalid_client' });
      expectNoCors(t, noClient);
    });
  });

  t.test('revocation endpoint: the same rule', async (t) => {
    const allowed = await post('/oauth2/revoke', SPA, { token: 'x.y', client_id: 'spa' });
    t.equal(allowed.statusCode, 200);
    t.same(corsHeadersOf(allowed), ALLOWED_RESPONSE(SPA));
    const missing = await post('/oauth2/revoke', SPA, { client_id: 'spa' });
    expectOAuthError(t, missing, { status: 400, error: 'invalid_request', description: "parameter 'token' is required" });
    t.same(corsHeadersOf(missing), ALLOWED_RESPONSE(SPA));
    expectNoCors(t, await post('/oauth2/revoke', EVIL, { token: 'x.y', client_id: 'spa' }));
  });

  t.test('discovery and JWKS: public documents for any origin, never with credentials', async (t) => {
    for (const url of ['/.well-known/jwks.json', '/.well-known/oauth-authorization-server']) {
      for (const method of ['GET', 'HEAD'] as const) {
        for (const origin of [EVIL, undefined]) {
          const res = await app.inject({ method, url, headers: origin ? { origin } : {} });
          t.equal(res.statusCode, 200, `${method} ${url}`);
          t.same(corsHeadersOf(res), { 'access-control-allow-origin': '*' }, `${method} ${url} from ${origin ?? 'no origin'}`);
        }
      }
    }
  });

  t.test('authorization and introspection endpoints: no CORS at all, OPTIONS refused as before', async (t) => {
    const { challenge } = pkcePair();
    const page = await app.inject({
      url: authorizeUrl({ response_type: 'code', client_id: 'spa', code_challenge: challenge, code_challenge_method: 'S256' }),
      headers: { origin: SPA },
    });
    t.equal(page.statusCode, 200);
    expectNoCors(t, page);
    const introspection = await post('/oauth2/introspect', CONSOLE, { token: 'x.y' }, basic('web', WEB_SECRET));
    t.same(introspection.json(), { active: false });
    expectNoCors(t, introspection);
    for (const [url, allow] of [
      ['/oauth2/authorize', 'GET, HEAD, POST'],
      ['/oauth2/introspect', 'POST'],
    ] as const) {
      const res = await preflight(url, { origin: SPA, 'access-control-request-method': 'POST' });
      t.equal(res.statusCode, 405, url);
      t.equal(res.headers.allow, allow);
      expectNoCors(t, res);
    }
  });
});

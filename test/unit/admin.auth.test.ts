import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { Registries } from '../../src/registries.js';
import { ADMIN_API, ADMIN_CLIENTS, ADMIN_SECRET, adminToken, bearer, expectProblem } from '../helpers/admin.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { tempDir } from '../helpers/keys.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER } from '../helpers/server.js';

/**
 * Who may call the admin API: a token we issued for {ISSUER}/admin/v1 (Bearer or DPoP),
 * with admin:read for reads and admin:write for changes; RFC 6750 and RFC 9449 challenges.
 */

const METADATA = `${ISSUER}/.well-known/oauth-protected-resource/admin/v1`;
const ALGS = 'ES256 EdDSA RS256 PS256';
const UNAUTHORIZED = { type: 'unauthorized', title: 'An access token for the admin API is required', status: 401 } as const;

function challenge(scheme: 'Bearer' | 'DPoP', attributes: string): string {
  return `${scheme} realm="${ADMIN_API}"${attributes ? `, ${attributes}` : ''}, resource_metadata="${METADATA}"${scheme === 'DPoP' ? `, algs="${ALGS}"` : ''}`;
}

t.test('the admin API is a protected resource of this server (RFC 9728, RFC 8414)', async (t) => {
  const { app } = await buildTestServer(t, { clients: ADMIN_CLIENTS });
  const metadata = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/admin/v1' });
  t.equal(metadata.statusCode, 200);
  t.same(metadata.json(), {
    resource: ADMIN_API,
    authorization_servers: [ISSUER],
    scopes_supported: ['admin:read', 'admin:write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Admin API',
    resource_documentation: `${ADMIN_API}/openapi.json`,
  });
  const discovery = (await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
  t.same(discovery.protected_resources, [ADMIN_API], 'listed with the resources of RESOURCES_FILE');
  t.ok(discovery.scopes_supported.includes('admin:read') && discovery.scopes_supported.includes('admin:write'));
});

t.test('POST /oauth2/token grant_type=client_credentials resource={ISSUER}/admin/v1', async (t) => {
  const { app } = await buildTestServer(t, { clients: ADMIN_CLIENTS });
  const token = (client: string, params: Record<string, string>, resource?: string) =>
    app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic(client, ADMIN_SECRET) },
      payload: `${new URLSearchParams({ grant_type: 'client_credentials', ...params })}${resource ? `&resource=${encodeURIComponent(resource)}` : ''}`,
    });
  t.test('a client whose scope lists them gets them, for the admin API', async (t) => {
    const res = await token('operator', {}, ADMIN_API);
    t.equal(res.statusCode, 200);
    t.equal(res.json().scope, 'admin:read admin:write');
    const claims = JSON.parse(Buffer.from(res.json().access_token.split('.')[1], 'base64url').toString());
    t.equal(claims.aud, ADMIN_API);
    t.equal((await token('auditor', { scope: 'admin:read' }, ADMIN_API)).json().scope, 'admin:read');
  });
  t.test('never by default without the resource: they mean nothing to another audience', async (t) => {
    const res = await token('auditor', {});
    t.equal(res.json().scope, 'read');
    const none = await token('operator', {});
    t.equal(none.statusCode, 200);
    t.equal(none.json().scope, undefined, 'nothing else is registered: no scope');
  });
  t.test('asked for without the resource: invalid_scope, saying how', async (t) => {
    expectOAuthError(t, await token('auditor', { scope: 'read admin:read' }), {
      status: 400,
      error: 'invalid_scope',
      description: 'admin:read is a scope of the admin API: request it with the admin API as resource (RFC 8707)',
    });
  });
  t.test('a client whose scope does not list them: invalid_scope', async (t) => {
    expectOAuthError(t, await token('auditor', { scope: 'admin:write' }, ADMIN_API), {
      status: 400,
      error: 'invalid_scope',
      description: 'scope not allowed for this client: admin:write',
    });
  });
});

t.test('GET /admin/v1/keys: who may call', async (t) => {
  const { app } = await buildTestServer(t, { clients: ADMIN_CLIENTS });
  const keys = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/admin/v1/keys', headers });

  t.test('without a token: 401 with both challenges, no error code (RFC 6750 §3.1)', async (t) => {
    expectProblem(t, await keys(), {
      ...UNAUTHORIZED,
      detail: 'an access token for the admin API is required',
      headers: { 'www-authenticate': `${challenge('Bearer', 'scope="admin:read"')}, ${challenge('DPoP', 'scope="admin:read"')}` },
    });
    expectProblem(t, await keys({ authorization: 'Basic b3BlcmF0b3I6eA==' }), {
      ...UNAUTHORIZED,
      detail: 'an access token for the admin API is required',
      headers: { 'www-authenticate': `${challenge('Bearer', 'scope="admin:read"')}, ${challenge('DPoP', 'scope="admin:read"')}` },
    });
  });

  t.test('a token for another audience: 401 invalid_token', async (t) => {
    const other = await adminToken(app, 'auditor', {}, '');
    const description = "the access token's aud claim is not valid here";
    expectProblem(t, await keys(bearer(other)), {
      ...UNAUTHORIZED,
      detail: description,
      headers: { 'www-authenticate': challenge('Bearer', `error="invalid_token", error_description="${description}"`) },
    });
  });

  t.test('a token that is not ours: 401 invalid_token', async (t) => {
    expectProblem(t, await keys(bearer('e30.e30.x')), {
      ...UNAUTHORIZED,
      detail: 'the access token is malformed',
      headers: { 'www-authenticate': challenge('Bearer', 'error="invalid_token", error_description="the access token is malformed"') },
    });
  });

  t.test('a token without admin:read: 403 insufficient_scope naming it', async (t) => {
    const scopeless = await adminToken(app, 'operator', { scope: 'admin:write' });
    const description = 'the access token lacks the scope admin:read';
    expectProblem(t, await keys(bearer(scopeless)), {
      status: 403,
      type: 'insufficient-scope',
      title: 'The access token lacks the scope this request needs',
      detail: 'this request needs the scope admin:read',
      scope: 'admin:read',
      headers: {
        'www-authenticate': challenge('Bearer', `error="insufficient_scope", error_description="${description}", scope="admin:read"`),
      },
    });
  });

  t.test('a change without admin:write: 403 insufficient_scope naming it', async (t) => {
    const reader = await adminToken(app, 'auditor');
    const res = await app.inject({ method: 'DELETE', url: '/admin/v1/grants/AAAAAAAAAAAAAAAAAAAAAA', headers: bearer(reader) });
    expectProblem(t, res, {
      status: 403,
      type: 'insufficient-scope',
      title: 'The access token lacks the scope this request needs',
      detail: 'this request needs the scope admin:write',
      scope: 'admin:write',
      headers: {
        'www-authenticate': challenge(
          'Bearer',
          'error="insufficient_scope", error_description="the access token lacks the scope admin:write", scope="admin:write"',
        ),
      },
    });
  });

  t.test('a revoked token: 401', async (t) => {
    const token = await adminToken(app, 'auditor');
    t.equal((await keys(bearer(token))).statusCode, 200);
    const revoked = await app.inject({
      method: 'POST',
      url: '/oauth2/revoke',
      headers: { ...FORM_HEADERS, authorization: basic('auditor', ADMIN_SECRET) },
      payload: new URLSearchParams({ token }).toString(),
    });
    t.equal(revoked.statusCode, 200);
    expectProblem(t, await keys(bearer(token)), {
      ...UNAUTHORIZED,
      detail: 'the access token was revoked',
      headers: { 'www-authenticate': challenge('Bearer', 'error="invalid_token", error_description="the access token was revoked"') },
    });
  });
});

t.test('DPoP-bound tokens (RFC 9449)', async (t) => {
  const { app, clock } = await buildTestServer(t, { clients: ADMIN_CLIENTS });
  const key = await dpopKey();
  const now = () => Math.floor(clock.now / 1000);
  const issued = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: {
      ...FORM_HEADERS,
      authorization: basic('operator', ADMIN_SECRET),
      dpop: await dpopProof(key, { htu: `${ISSUER}/oauth2/token`, iat: now() }),
    },
    payload: new URLSearchParams({ grant_type: 'client_credentials', resource: ADMIN_API }).toString(),
  });
  t.equal(issued.json().token_type, 'DPoP');
  const token = issued.json().access_token as string;
  const url = `${ADMIN_API}/keys`;
  const proof = await dpopProof(key, { htm: 'GET', htu: url, iat: now(), accessToken: token });
  const ok = await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: { authorization: `DPoP ${token}`, dpop: proof } });
  t.equal(ok.statusCode, 200, 'with its proof');
  expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: { authorization: `DPoP ${token}`, dpop: proof } }), {
    ...UNAUTHORIZED,
    detail: 'the DPoP proof was already used',
    headers: { 'www-authenticate': challenge('DPoP', 'error="invalid_dpop_proof", error_description="the DPoP proof was already used"') },
  });
  const asBearer = 'the access token is DPoP-bound: send it with the DPoP scheme and a proof';
  expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: bearer(token) }), {
    ...UNAUTHORIZED,
    detail: asBearer,
    headers: {
      'www-authenticate': `${challenge('Bearer', `error="invalid_token", error_description="${asBearer}"`)}, DPoP realm="${ADMIN_API}", resource_metadata="${METADATA}", algs="${ALGS}"`,
    },
  });
  const elsewhere = await dpopProof(key, { htm: 'GET', htu: `${ADMIN_API}/grants`, iat: now(), accessToken: token });
  const wrongUri = await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: { authorization: `DPoP ${token}`, dpop: elsewhere } });
  t.equal(wrongUri.statusCode, 401, 'a proof for another URI');
  t.match(wrongUri.headers['www-authenticate'], /^DPoP .*error="invalid_dpop_proof"/);
});

t.test('RESOURCES_FILE cannot redefine the admin API: refused with one line', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'resources.json');
  await writeFile(
    file,
    JSON.stringify({ resources: [{ resource: 'https://api.example.com/' }, { resource: ADMIN_API, scope: 'anything' }] }),
  );
  await t.rejects(
    Registries.open({ clients: undefined, users: undefined, resources: file, reservedResources: [ADMIN_API] }, { sources: {} as never }),
    {
      message: `RESOURCES_FILE: ${file}: resource "${ADMIN_API}": resource: is this server's own admin API, built in: it cannot be redefined`,
    },
  );
  const other = await Registries.open(
    { clients: undefined, users: undefined, resources: file, reservedResources: [`${ISSUER}/tenant/admin/v1`] },
    {
      sources: {} as never,
    },
  );
  t.equal(other.resources.size, 2, "another issuer's admin API is an ordinary resource");
});

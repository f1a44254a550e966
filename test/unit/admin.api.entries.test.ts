import t from 'tap';
import { ADMIN_CLIENTS, ADMIN_SECRET, adminToken, expectProblem } from '../helpers/admin.js';
import { adminCalls, adminChanges } from '../helpers/admin-api.js';
import { capturedLogger } from '../helpers/logs.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER } from '../helpers/server.js';
import { spiffeIssuer } from '../helpers/workload-issuers.js';

/**
 * /admin/v1/resources, /admin/v1/providers and /admin/v1/workload-trusts through HTTP on the
 * memory store: the fields of their files, file entries listed and read-only, ETag and
 * If-Match, served at once; a provider's secret write-only and sealed; a workload trust
 * of the store lets workloads in, and discovery lists the jwt-bearer grant while one exists.
 */

const KEY = 'entries-encryption-key-0123456789abcdef';
const API = 'https://api.example.com/';
const FILES = 'https://files.example.com/';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

t.test('resources: created, read by their percent-encoded identifier, replaced, deleted; RESOURCES_FILE read-only', async (t) => {
  const logs = capturedLogger('info');
  const s = await buildTestServer(t, { clients: ADMIN_CLIENTS, resources: [{ resource: FILES, scope: 'read' }], logger: logs.logger });
  const api = adminCalls(s.app, await adminToken(s.app, 'operator'));
  const now = Math.floor(s.clock.now / 1000);
  const path = `/resources/${encodeURIComponent(API)}`;
  const created = await api.post('/resources', { resource: API, name: 'API', scope: 'read write' });
  t.same([created.statusCode, created.headers.etag, created.headers.location], [201, '"resource-1"', `${ISSUER}/admin/v1${path}`]);
  t.same(created.json(), { resource: API, name: 'API', scope: 'read write', source: 'admin', created_at: now, updated_at: now });
  const token = await s.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic('auditor', ADMIN_SECRET) },
    payload: new URLSearchParams({ grant_type: 'client_credentials', resource: API, scope: 'read' }).toString(),
  });
  t.equal(token.statusCode, 200, 'a token for it at once');
  t.same((await api.get(path)).json(), created.json());
  t.same((await api.get('/resources')).json(), {
    items: [{ resource: FILES, scope: 'read', source: 'file' }, created.json()],
  });
  t.same((await api.get('/resources?source=file&limit=1')).json(), { items: [{ resource: FILES, scope: 'read', source: 'file' }] });
  const replaced = await api.put(path, { resource: API, scope: 'read' }, '"resource-1"');
  t.same([replaced.statusCode, replaced.headers.etag, replaced.json().name], [200, '"resource-2"', undefined]);
  expectProblem(t, await api.put(path, { resource: API, scope: 'write' }, '"resource-1"'), {
    status: 412,
    type: 'precondition-failed',
    title: 'The entry changed since it was read (If-Match)',
    detail: `resource "${API}" is at rev 2, not 1: read it again`,
  });
  expectProblem(t, await api.put(path, { resource: FILES, scope: 'write' }), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: 'resource cannot change',
    errors: [{ field: 'resource', problem: `must be "${API}", the entry's resource` }],
  });
  expectProblem(t, await api.post('/resources', { resource: `${ISSUER}/admin/v1`, scope: 'admin:read' }), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: "the resource is not valid: resource: is this server's own admin API, built in: it cannot be redefined",
    errors: [{ field: 'resource', problem: "is this server's own admin API, built in: it cannot be redefined" }],
  });
  expectProblem(t, await api.post('/resources', { resource: 'https://API.example.com/#x', scopes: 'read' }), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: 'the body has invalid fields',
    errors: [
      { field: 'resource', problem: 'must not have a fragment (RFC 8707 §2)' },
      { field: 'resource', problem: 'the host must be in lowercase' },
      { field: 'scopes', problem: 'unknown field' },
    ],
  });
  const fileConflict = {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: `resource "${FILES}" is declared in RESOURCES_FILE: change it there`,
  };
  const filePath = `/resources/${encodeURIComponent(FILES)}`;
  t.match((await api.get(filePath)).headers.etag, /^"file-/);
  expectProblem(t, await api.put(filePath, { resource: FILES }), fileConflict);
  expectProblem(t, await api.delete(filePath), fileConflict);
  expectProblem(t, await api.post('/resources', { resource: FILES }), fileConflict);
  t.equal((await api.delete(path, '"resource-2"')).statusCode, 204);
  t.equal(s.registries.resources.get(API), undefined, 'gone at once');
  t.same(
    adminChanges(logs.lines()).map((c) => [c.entity, c.id, c.action, c.fields]),
    [
      ['resource', API, 'created', ['name', 'resource', 'scope']],
      ['resource', API, 'replaced', ['name', 'scope']],
      ['resource', API, 'deleted', []],
    ],
  );
});

t.test('providers: client_secret write-only (client_secret_set), sealed in the store, kept by a PUT without it', async (t) => {
  const logs = capturedLogger('trace');
  const fileProvider = { id: 'github', type: 'github', name: 'GitHub', client_id: 'gh', client_secret: 'file-provider-secret' };
  const s = await buildTestServer(t, {
    clients: ADMIN_CLIENTS,
    providers: [fileProvider],
    env: { ENTRIES_ENCRYPTION_KEY: KEY },
    logger: logs.logger,
  });
  const api = adminCalls(s.app, await adminToken(s.app, 'operator'));
  const corp = { id: 'corp', type: 'oidc', name: 'Corp', issuer: 'https://login.corp.example.com', client_id: 'ours' };
  const created = await api.post('/providers', { ...corp, client_secret: 'corp-upstream-secret' });
  t.same([created.statusCode, created.headers.etag], [201, '"provider-1"']);
  const view = {
    ...corp,
    keep_tokens: false,
    end_session: false,
    allow_private_addresses: false,
    scope: 'openid email profile',
    id_jag: false,
    client_secret_set: true,
    source: 'admin',
  };
  t.match(created.json(), view);
  t.equal(created.body.includes('corp-upstream-secret'), false, 'never answered');
  t.equal(s.registries.providers?.get('corp')?.client_secret, 'corp-upstream-secret', 'served at once, opened in memory');
  t.equal(JSON.stringify(await s.store.entries.readAllEntries()).includes('corp-upstream-secret'), false, 'sealed in the store');
  const replaced = await api.put('/providers/corp', { ...corp, name: 'Corp SSO' }, '"provider-1"');
  t.same([replaced.statusCode, replaced.json().name, replaced.json().client_secret_set], [200, 'Corp SSO', true]);
  t.equal(s.registries.providers?.get('corp')?.client_secret, 'corp-upstream-secret', 'the secret kept');
  const listed = (await api.get('/providers')).json();
  t.same(
    listed.items.map((p: Record<string, unknown>) => [p.id, p.source, p.client_secret_set, 'client_secret' in p]),
    [
      ['github', 'file', true, false],
      ['corp', 'admin', true, false],
    ],
  );
  t.equal(JSON.stringify(listed).includes('file-provider-secret'), false, "a file provider's secret is not answered either");
  expectProblem(t, await api.put('/providers/github', { ...fileProvider, name: 'GitHub.com' }), {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: 'identity provider "github" is declared in IDENTITY_PROVIDERS_FILE: change it there',
  });
  expectProblem(t, await api.post('/providers', { ...corp, id: 'nosecret' }), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: 'the body has invalid fields',
    errors: [{ field: 'client_secret', problem: 'Invalid input: expected string, received undefined' }],
  });
  t.same(
    adminChanges(logs.lines()).map((c) => [c.action, c.fields]),
    [
      [
        'created',
        [
          'allow_private_addresses',
          'client_id',
          'client_secret',
          'end_session',
          'id',
          'id_jag',
          'issuer',
          'keep_tokens',
          'name',
          'scope',
          'type',
        ],
      ],
      ['replaced', ['name']],
    ],
  );
  t.equal(logs.text().includes('corp-upstream-secret'), false, 'in no log line, at trace');
});

t.test('providers without ENTRIES_ENCRYPTION_KEY: a clear problem naming it', async (t) => {
  const s = await buildTestServer(t, { clients: ADMIN_CLIENTS, providers: [] });
  const api = adminCalls(s.app, await adminToken(s.app, 'operator'));
  expectProblem(
    t,
    await api.post('/providers', {
      id: 'corp',
      type: 'oidc',
      name: 'Corp',
      issuer: 'https://login.corp.example.com',
      client_id: 'ours',
      client_secret: 's',
    }),
    {
      status: 400,
      type: 'validation',
      title: 'The request is not valid',
      detail: 'client_secret cannot be stored: set ENTRIES_ENCRYPTION_KEY, the key provider secrets are sealed under',
      errors: [
        { field: 'client_secret', problem: 'cannot be stored: set ENTRIES_ENCRYPTION_KEY, the key provider secrets are sealed under' },
      ],
    },
  );
});

t.test('workload trusts: a trust of the store lets workloads in, discovery lists jwt-bearer while one exists', async (t) => {
  const mcp = 'https://mcp.example.com';
  const s = await buildTestServer(t, {
    clients: ADMIN_CLIENTS.filter((c) => c.client_id !== 'service'),
    resources: [{ resource: mcp, scope: 'tools:call' }],
  });
  const nowSeconds = () => Math.floor(s.clock.now / 1000);
  const mesh = await spiffeIssuer({ audience: ISSUER, nowSeconds });
  const api = adminCalls(s.app, await adminToken(s.app, 'operator'));
  const grants = async () =>
    ((await s.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json() as { grant_types_supported: string[] })
      .grant_types_supported;
  const trade = async () =>
    s.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await mesh.sign(), resource: mcp }).toString(),
    });
  t.equal((await grants()).includes(JWT_BEARER), false, 'no trust, no client with the grant');
  const trust = {
    id: 'mesh',
    issuer: mesh.issuer,
    jwks: mesh.jwks,
    rules: [{ sub: 'spiffe://example.org/ns/default/sa/*', resources: [mcp], scope: 'tools:call' }],
  };
  const created = await api.post('/workload-trusts', trust);
  t.same(
    [created.statusCode, created.headers.etag, created.json().require_jti, created.json().source],
    [201, '"workload_trust-1"', false, 'admin'],
  );
  t.equal((await grants()).includes(JWT_BEARER), true, 'listed while a trust exists');
  const traded = await trade();
  t.same(
    [traded.statusCode, traded.json().token_type, traded.json().scope],
    [200, 'bearer', 'tools:call'],
    'a workload trades its JWT-SVID',
  );
  expectProblem(t, await api.post('/workload-trusts', { ...trust, id: 'mesh-twice' }), {
    status: 409,
    type: 'conflict-exists',
    title: 'An entry with this id exists already',
    detail: `the issuer ${mesh.issuer} is trusted by trust "mesh" already: one trust per issuer`,
  });
  expectProblem(
    t,
    await api.post('/workload-trusts', {
      ...trust,
      id: 'plain',
      issuer: 'https://ci.example.com',
      jwks: undefined,
      jwks_uri: 'http://ci.example.com/jwks',
    }),
    {
      status: 400,
      type: 'validation',
      title: 'The request is not valid',
      detail: 'the trust is not valid: jwks_uri: must be an https URL (http only with WORKLOAD_TRUSTS_ALLOW_INSECURE=true)',
      errors: [{ field: 'jwks_uri', problem: 'must be an https URL (http only with WORKLOAD_TRUSTS_ALLOW_INSECURE=true)' }],
    },
  );
  t.same((await api.get('/workload-trusts/mesh')).json(), created.json());
  t.equal((await api.delete('/workload-trusts/mesh', '"workload_trust-1"')).statusCode, 204);
  t.equal((await grants()).includes(JWT_BEARER), false, 'no longer listed');
  t.same((await trade()).json().error, 'invalid_client', 'and no workload is let in: a JWT bearer request needs a client again');
});

t.test("workload trusts: WORKLOAD_TRUSTS_FILE's are listed and read-only", async (t) => {
  const fileTrust = {
    id: 'ci',
    issuer: 'https://token.actions.githubusercontent.com',
    rules: [{ sub: 'repo:acme/*', resources: ['https://mcp.example.com'], scope: 'tools:call' }],
  };
  const s = await buildTestServer(t, { clients: ADMIN_CLIENTS, workloads: [fileTrust], env: { WORKLOAD_TRUSTS_ALLOW_INSECURE: 'false' } });
  const api = adminCalls(s.app, await adminToken(s.app, 'operator'));
  t.same((await api.get('/workload-trusts')).json(), {
    items: [{ ...fileTrust, require_jti: false, allow_private_addresses: false, source: 'file' }],
  });
  expectProblem(t, await api.post('/workload-trusts', { ...fileTrust, id: 'ci-again' }), {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: 'the issuer https://token.actions.githubusercontent.com is trusted by trust "ci" of WORKLOAD_TRUSTS_FILE: one trust per issuer',
  });
  expectProblem(t, await api.delete('/workload-trusts/ci'), {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: 'workload trust "ci" is declared in WORKLOAD_TRUSTS_FILE: change it there',
  });
});

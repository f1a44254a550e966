import t, { type Test } from 'tap';
import { encodeCursor } from '../../src/admin/paging.js';
import { ADMIN_CLIENTS, adminToken, expectProblem } from '../helpers/admin.js';
import { adminCalls, adminChanges, validationFailure } from '../helpers/admin-api.js';
import { ALICE, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { capturedLogger } from '../helpers/logs.js';
import { NATIVE_CLIENT, withRegistration } from '../helpers/registration.js';
import { refreshTokenOf, tokenRequest } from '../helpers/security-flows.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';
import { ClientRegistry } from '../../src/clients/registry.js';

/**
 * /admin/v1/clients through HTTP on the memory store: RFC 7591 metadata in and out, the
 * secret shown once, served at once, ETag and If-Match, JSON Merge Patch, disabled, a new
 * secret, CLIENTS_FILE's clients read-only, dynamically registered ones listed and deleted,
 * lists filtered and paged, every change audited by field name only.
 */

const DEFAULTS = {
  redirect_uris: [],
  introspect_all_tokens: false,
  dpop_bound_access_tokens: false,
  allowed_origins: [],
  skip_consent: false,
  post_logout_redirect_uris: [],
  require_auth_time: false,
  disabled: false,
};

async function server(t: Test) {
  const logs = capturedLogger('info');
  const fileClients = ClientRegistry.fromMetadata(ADMIN_CLIENTS);
  const s = await buildTestServer(t, {
    clientRegistry: fileClients,
    users: testUsers(),
    resources: [{ resource: 'https://api.example.com/', scope: 'read write' }],
    env: { DYNAMIC_CLIENT_REGISTRATION: 'open' },
    logger: logs.logger,
  });
  const now = Math.floor(s.clock.now / 1000);
  const api = adminCalls(s.app, await adminToken(s.app, 'operator'));
  return { ...withRegistration(s.app, s, fileClients), api, logs, now };
}

const cc = (app: Parameters<typeof tokenRequest>[0], id: string, secret: string) =>
  tokenRequest(app, id, secret, { grant_type: 'client_credentials' });

t.test('POST /admin/v1/clients: RFC 7591 metadata, the generated secret once, served at once', async (t) => {
  const { app, api, now, logs } = await server(t);
  const created = await api.post('/clients', {
    client_id: 'reporting',
    client_name: 'Reporting',
    grant_types: ['client_credentials'],
    scope: 'read',
  });
  t.equal(created.statusCode, 201);
  t.same(
    [created.headers['content-type'], created.headers['cache-control'], created.headers.etag, created.headers.location],
    ['application/json', 'no-store', '"client-1"', `${ISSUER}/admin/v1/clients/reporting`],
  );
  const { client_secret: secret, ...rest } = created.json();
  t.match(secret, /^[A-Za-z0-9_-]{43}$/, 'a 256-bit secret');
  t.same(rest, {
    client_id: 'reporting',
    client_name: 'Reporting',
    ...DEFAULTS,
    grant_types: ['client_credentials'],
    scope: 'read',
    token_endpoint_auth_method: 'client_secret_basic',
    source: 'admin',
    created_at: now,
    updated_at: now,
    client_secret_expires_at: 0,
  });
  t.equal((await cc(app, 'reporting', secret)).statusCode, 200, 'a client_credentials token at once');

  const read = await api.get('/clients/reporting');
  t.same([read.statusCode, read.headers.etag], [200, '"client-1"']);
  const { client_secret_expires_at: _expiry, ...metadata } = rest;
  t.same(read.json(), metadata, 'the same metadata, never the secret');
  t.equal(read.body.includes(secret), false);
  t.equal('client_secret' in read.json(), false);

  const generated = await api.post('/clients', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' });
  t.match(generated.json().client_id, /^client-[A-Za-z0-9_-]{16}$/, 'an id generated when none is given');
  const pub = await api.post('/clients', { client_id: 'cli', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' });
  t.same([pub.statusCode, 'client_secret' in pub.json()], [201, false], 'a public client gets no secret');

  t.same(adminChanges(logs.lines())[0], {
    actor: { client_id: 'operator' },
    entity: 'client',
    id: 'reporting',
    action: 'created',
    fields: [
      'allowed_origins',
      'client_id',
      'client_name',
      'client_secret',
      'disabled',
      'dpop_bound_access_tokens',
      'grant_types',
      'introspect_all_tokens',
      'post_logout_redirect_uris',
      'redirect_uris',
      'require_auth_time',
      'scope',
      'skip_consent',
      'token_endpoint_auth_method',
    ],
  });
  t.equal(logs.text().includes(secret), false, 'the secret is in no log line');
});

t.test('POST /admin/v1/clients: refused with each field named', async (t) => {
  const { api } = await server(t);
  const problem = (errors: { field: string; problem: string }[], detail = 'the body has invalid fields') =>
    validationFailure(detail, errors);
  expectProblem(
    t,
    await api.post('/clients', {
      client_id: 'web-app',
      redirect_uris: ['http://app.example.com/cb', 'https://app.example.com/cb#top', 'javascript:alert(1)', 'http://localhost:8080/cb'],
      client_secret: 'chosen',
      colour: 'blue',
    }),
    problem([
      { field: 'redirect_uris.1', problem: 'must not have a fragment' },
      { field: 'client_secret', problem: 'unknown field' },
      { field: 'colour', problem: 'unknown field' },
      { field: 'redirect_uris.0', problem: 'http is allowed only for a loopback address (127.0.0.1, [::1] or localhost); use https' },
      { field: 'redirect_uris.2', problem: 'the scheme javascript: is not allowed for redirect URIs' },
    ]),
  );
  expectProblem(
    t,
    await api.post('/clients', { client_id: 'web-app', grant_types: ['authorization_code'] }),
    problem(
      [{ field: 'redirect_uris', problem: 'required for authorization_code and implicit' }],
      'the client is not valid: redirect_uris: required for authorization_code and implicit',
    ),
  );
  expectProblem(
    t,
    await api.post('/clients', { client_id: 'bob', grant_types: ['client_credentials'] }),
    problem(
      [{ field: 'client_id', problem: "is the sub of a user: its client_credentials tokens would carry a user's sub (RFC 9700 §4.15)" }],
      "client_id is the sub of a user: its client_credentials tokens would carry a user's sub (RFC 9700 §4.15)",
    ),
  );
  expectProblem(
    t,
    await api.post('/clients', { client_id: 'dyn_AAAAAAAAAAAAAAAAAAAAAA', grant_types: ['client_credentials'] }),
    problem(
      [{ field: 'client_id', problem: 'has the form of the ids given to dynamically registered clients (dyn_…)' }],
      'client_id has the form of the ids given to dynamically registered clients (dyn_…)',
    ),
  );
  expectProblem(t, await api.post('/clients', { client_id: 'operator', grant_types: ['client_credentials'] }), {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: 'client "operator" is declared in CLIENTS_FILE: change it there',
  });
  await api.post('/clients', { client_id: 'twice', grant_types: ['client_credentials'] });
  expectProblem(t, await api.post('/clients', { client_id: 'twice', grant_types: ['client_credentials'] }), {
    status: 409,
    type: 'conflict-exists',
    title: 'An entry with this id exists already',
    detail: 'client "twice" exists already',
  });
});

t.test("CLIENTS_FILE's clients: listed, read with a file ETag, and 409 naming the file on any change", async (t) => {
  const { api } = await server(t);
  const read = await api.get('/clients/service');
  t.equal(read.statusCode, 200);
  t.match(read.headers.etag, /^"file-[A-Za-z0-9_-]{22}"$/);
  t.same(read.json(), {
    client_id: 'service',
    client_name: 'Service client',
    ...DEFAULTS,
    grant_types: ['client_credentials'],
    scope: 'read write admin',
    token_endpoint_auth_method: 'client_secret_basic',
    source: 'file',
  });
  const conflict = {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: 'client "service" is declared in CLIENTS_FILE: change it there',
  };
  expectProblem(t, await api.put('/clients/service', { grant_types: ['client_credentials'] }), conflict);
  expectProblem(t, await api.patch('/clients/service', { disabled: true }, read.headers.etag), conflict);
  expectProblem(t, await api.delete('/clients/service'), conflict);
  expectProblem(t, await api.post('/clients/service/secret'), conflict);
});

t.test('If-Match: a stale tag is 412 and writes nothing; the current one writes', async (t) => {
  const { api, app } = await server(t);
  const created = await api.post('/clients', { client_id: 'batch', grant_types: ['client_credentials'], scope: 'read' });
  const secret = created.json().client_secret as string;
  const put = await api.put('/clients/batch', { grant_types: ['client_credentials'], scope: 'read write' }, '"client-1"');
  t.same([put.statusCode, put.headers.etag, put.json().scope, 'client_secret' in put.json()], [200, '"client-2"', 'read write', false]);
  t.equal(
    (await tokenRequest(app, 'batch', secret, { grant_type: 'client_credentials', scope: 'write' })).statusCode,
    200,
    'the secret kept',
  );
  const stale = {
    status: 412,
    type: 'precondition-failed',
    title: 'The entry changed since it was read (If-Match)',
    detail: 'client "batch" is at rev 2, not 1: read it again',
  };
  expectProblem(t, await api.put('/clients/batch', { grant_types: ['client_credentials'] }, '"client-1"'), stale);
  expectProblem(t, await api.delete('/clients/batch', '"client-1"'), stale);
  expectProblem(t, await api.patch('/clients/batch', { scope: 'read' }, '"client-1"'), {
    ...stale,
    detail: 'If-Match does not name the current version of this entry: read it again',
  });
  expectProblem(t, await api.post('/clients/batch/secret', undefined, '"client-1"'), stale);
  expectProblem(t, await api.put('/clients/batch', { grant_types: ['client_credentials'] }, '"resource-2"'), {
    ...stale,
    detail: 'If-Match does not name the current version of this entry: read it again',
  });
  const read = await api.get('/clients/batch');
  t.same([read.headers.etag, read.json().scope], ['"client-2"', 'read write'], 'nothing was written');
  t.equal((await cc(app, 'batch', secret)).statusCode, 200, 'nor the secret changed');
  const removed = await api.delete('/clients/batch', '"client-2"');
  t.same([removed.statusCode, removed.body], [204, '']);
  expectProblem(t, await api.get('/clients/batch'), {
    status: 404,
    type: 'not-found',
    title: 'Not found',
    detail: 'no client "batch"',
  });
  t.same((await cc(app, 'batch', secret)).json().error, 'invalid_client', 'refused at once');
});

t.test('PATCH: a JSON Merge Patch of the metadata; disabled refuses the client and revokes its grants', async (t) => {
  const { api, app, logs } = await server(t);
  const created = await api.post('/clients', {
    client_id: 'portal',
    client_name: 'Portal',
    redirect_uris: [WEB_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read',
  });
  const secret = created.json().client_secret as string;
  const refreshToken = await refreshTokenOf(app, 'portal', secret, ALICE);
  expectProblem(
    t,
    await app.inject({
      method: 'PATCH',
      url: '/admin/v1/clients/portal',
      headers: { authorization: (await adminHeader(app)).authorization, 'content-type': 'application/json' },
      payload: '{"scope":"read write"}',
    }),
    {
      status: 415,
      type: 'unsupported-media-type',
      title: 'The body must be JSON',
      detail: 'send the body as application/merge-patch+json',
    },
  );
  const patched = await api.patch('/clients/portal', {
    client_name: null,
    scope: 'read write',
    redirect_uris: [WEB_REDIRECT, 'http://[::1]/cb'],
  });
  t.same([patched.statusCode, patched.headers.etag], [200, '"client-2"']);
  t.same(
    [patched.json().client_name, patched.json().scope, patched.json().redirect_uris],
    [undefined, 'read write', [WEB_REDIRECT, 'http://[::1]/cb']],
    'null removes a member; arrays replace',
  );
  expectProblem(t, await api.patch('/clients/portal', { redirect_uris: ['http://portal.example.com/cb'], client_id: 'other' }), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: 'the patched client is not valid',
    errors: [
      { field: 'redirect_uris.0', problem: 'http is allowed only for a loopback address (127.0.0.1, [::1] or localhost); use https' },
    ],
  });
  const disabled = await api.patch('/clients/portal', { disabled: true }, '"client-2"');
  t.same([disabled.statusCode, disabled.headers.etag, disabled.json().disabled], [200, '"client-3"', true]);
  t.same((await cc(app, 'portal', secret)).json().error, 'invalid_client', 'refused at once');
  const enabled = await api.patch('/clients/portal', { disabled: false });
  t.same([enabled.statusCode, enabled.json().disabled], [200, false]);
  const refreshed = await tokenRequest(app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken });
  t.same([refreshed.statusCode, refreshed.json().error], [400, 'invalid_grant'], 'its grants were revoked when it was disabled');
  t.same(
    adminChanges(logs.lines())
      .slice(1)
      .map((c) => [c.action, c.fields]),
    [
      ['updated', ['client_name', 'redirect_uris', 'scope']],
      ['disabled', ['disabled']],
      ['enabled', ['disabled']],
    ],
  );
});

async function adminHeader(app: Parameters<typeof adminToken>[0]) {
  return { authorization: `Bearer ${await adminToken(app, 'operator')}` };
}

t.test('POST /admin/v1/clients/{client_id}/secret: a new secret once, the old one refused at once', async (t) => {
  const { api, app, logs } = await server(t);
  const old = (await api.post('/clients', { client_id: 'rotating', grant_types: ['client_credentials'] })).json().client_secret as string;
  const rotated = await api.post('/clients/rotating/secret', undefined, '"client-1"');
  t.same([rotated.statusCode, rotated.headers.etag, rotated.json().client_secret_expires_at], [200, '"client-2"', 0]);
  const secret = rotated.json().client_secret as string;
  t.not(secret, old);
  t.same((await cc(app, 'rotating', old)).json().error, 'invalid_client');
  t.equal((await cc(app, 'rotating', secret)).statusCode, 200);
  t.equal('client_secret' in (await api.get('/clients/rotating')).json(), false);
  await api.post('/clients', { client_id: 'public', redirect_uris: ['https://public.example.com/cb'], token_endpoint_auth_method: 'none' });
  expectProblem(t, await api.post('/clients/public/secret'), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: 'token_endpoint_auth_method is none: the client has no secret',
    errors: [{ field: 'token_endpoint_auth_method', problem: 'is none: the client has no secret' }],
  });
  t.same(adminChanges(logs.lines())[1], {
    actor: { client_id: 'operator' },
    entity: 'client',
    id: 'rotating',
    action: 'secret_rotated',
    fields: ['client_secret'],
  });
  t.same([logs.text().includes(old), logs.text().includes(secret)], [false, false]);
});

t.test('PUT: a client that starts using a secret gets one in that answer; one that stops loses it', async (t) => {
  const { api, app } = await server(t);
  await api.post('/clients', { client_id: 'switch', redirect_uris: ['https://switch.example.com/cb'], token_endpoint_auth_method: 'none' });
  const confidential = await api.put('/clients/switch', {
    redirect_uris: ['https://switch.example.com/cb'],
    grant_types: ['authorization_code', 'client_credentials'],
  });
  const secret = confidential.json().client_secret as string;
  t.match(secret, /^[A-Za-z0-9_-]{43}$/);
  t.equal((await cc(app, 'switch', secret)).statusCode, 200);
  const again = await api.put('/clients/switch', {
    redirect_uris: ['https://switch.example.com/cb'],
    grant_types: ['authorization_code', 'client_credentials'],
  });
  t.equal('client_secret' in again.json(), false, 'kept, not shown');
  expectProblem(t, await api.put('/clients/switch', { client_id: 'renamed', redirect_uris: ['https://switch.example.com/cb'] }), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: "the replaced client's client_id cannot change",
    errors: [{ field: 'client_id', problem: 'must be "switch", the client\'s id' }],
  });
  expectProblem(t, await api.put('/clients/nobody', { grant_types: ['client_credentials'] }), {
    status: 404,
    type: 'not-found',
    title: 'Not found',
    detail: 'client "nobody" does not exist',
  });
});

t.test('dynamically registered clients: listed with source registration, read, deleted (cleanup), never changed here', async (t) => {
  const { api, app, registered } = await server(t);
  const info = await registered(t, { ...NATIVE_CLIENT, software_id: 'mcp-inspector' });
  const id = info.client_id;
  const read = await api.get(`/clients/${id}`);
  t.equal(read.statusCode, 200);
  t.match(read.headers.etag, /^"registration-[A-Za-z0-9_-]{22}"$/);
  t.same(read.json(), {
    client_id: id,
    client_name: 'Example MCP client',
    ...DEFAULTS,
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: '',
    token_endpoint_auth_method: 'none',
    source: 'registration',
    created_at: info.client_id_issued_at,
    application_type: 'native',
    software_id: 'mcp-inspector',
    expires_at: read.json().expires_at,
  });
  t.ok(read.json().expires_at > info.client_id_issued_at);
  const listed = await api.get('/clients?source=registration');
  t.same(listed.json(), { items: [read.json()] });
  expectProblem(t, await api.put(`/clients/${id}`, { redirect_uris: ['http://127.0.0.1/callback'] }), {
    status: 409,
    type: 'conflict-registration',
    title: 'The client is dynamically registered: it can only be deleted here',
    detail: `client "${id}" is dynamically registered (RFC 7591): it manages itself (RFC 7592); here it can only be deleted`,
  });
  expectProblem(t, await api.delete(`/clients/${id}`, '"registration-stale"'), {
    status: 412,
    type: 'precondition-failed',
    title: 'The entry changed since it was read (If-Match)',
    detail: 'If-Match does not name the current version of this entry: read it again',
  });
  const deleted = await api.delete(`/clients/${id}`, read.headers.etag);
  t.equal(deleted.statusCode, 204);
  t.same((await api.get('/clients?source=registration')).json(), { items: [] });
  const manage = await app.inject({
    method: 'GET',
    url: `/oauth2/register/${id}`,
    headers: { authorization: `Bearer ${info.registration_access_token}` },
  });
  t.equal(manage.statusCode, 401, 'gone for its own management too');
});

t.test(
  'GET /admin/v1/clients: file clients, then the API’s, then registrations; filtered by source, grant_type and q; paged',
  async (t) => {
    const { api, registered } = await server(t);
    for (const [client_id, client_name] of [
      ['zeta', 'Zeta reports'],
      ['al.pha', 'Alpha'],
    ])
      await api.post('/clients', { client_id, client_name, grant_types: ['client_credentials'] });
    const dynamic = [(await registered(t)).client_id, (await registered(t)).client_id].sort();
    const ids = async (query: string) =>
      ((await api.get(`/clients?${query}`)).json().items as { client_id: string }[]).map((c) => c.client_id);
    const file = ['service', 'poster', 'webapp', 'spa', 'operator', 'auditor'];
    t.same(await ids(''), [...file, 'zeta', 'al.pha', ...dynamic]);
    t.same(await ids('source=file'), file);
    t.same(await ids('source=admin'), ['zeta', 'al.pha']);
    t.same(await ids('grant_type=authorization_code'), ['webapp', 'spa', ...dynamic]);
    t.same(await ids('q=REPORT'), ['zeta'], 'q on the name, any case');
    // A dot: never in a registered client's random id (base64url), nor in a name here.
    t.same(await ids('q=.PH'), ['al.pha'], 'and on the id, any case');

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = (await api.get(`/clients?limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json() as {
        items: { client_id: string }[];
        next?: string;
      };
      pages.push(page.items.map((c) => c.client_id));
      cursor = page.next;
      if (pages.length === 1) await api.post('/clients', { client_id: 'late', grant_types: ['client_credentials'] });
    } while (cursor);
    t.same(pages, [file.slice(0, 3), file.slice(3), ['zeta', 'al.pha', 'late'], dynamic], 'stable while clients are added');
    t.same((await api.get('/clients?limit=3')).json().next, encodeCursor([0, 2]));
    expectProblem(t, await api.get('/clients?source=elsewhere'), {
      status: 400,
      type: 'validation',
      title: 'The request is not valid',
      detail: 'the query has invalid parameters',
      errors: [{ field: 'source', problem: 'Invalid option: expected one of "file"|"admin"|"registration"' }],
    });
  },
);

t.test('a token with admin:read alone reads but cannot change (403); one for another audience is refused (401)', async (t) => {
  const { app, registries } = await server(t);
  const reader = adminCalls(app, await adminToken(app, 'auditor'));
  t.equal((await reader.get('/clients')).statusCode, 200);
  const refused = await reader.post('/clients', { client_id: 'nope', grant_types: ['client_credentials'] });
  t.same(
    [refused.statusCode, refused.json().type, refused.json().scope],
    [403, 'urn:oauth2-token-service:problem:insufficient-scope', 'admin:write'],
  );
  const elsewhere = adminCalls(app, await adminToken(app, 'auditor', { scope: 'read' }, 'https://api.example.com/'));
  const unauthorized = await elsewhere.post('/clients', { client_id: 'nope', grant_types: ['client_credentials'] });
  t.same(
    [unauthorized.statusCode, unauthorized.json().type, unauthorized.json().detail],
    [401, 'urn:oauth2-token-service:problem:unauthorized', "the access token's aud claim is not valid here"],
  );
  t.match(unauthorized.headers['www-authenticate'], /^Bearer .*error="invalid_token"/);
  t.equal(registries.clients.held('nope'), undefined, 'nothing was written');
});

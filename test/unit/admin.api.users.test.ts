import t, { type Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { federatedSubject } from '../../src/identity/federated-subject.js';
import { ADMIN_API, ADMIN_CLIENTS, ADMIN_SECRET, adminToken, expectProblem } from '../helpers/admin.js';
import { adminCalls, adminChanges, validationFailure } from '../helpers/admin-api.js';
import { testUsers } from '../helpers/authorize-fixtures.js';
import { capturedLogger } from '../helpers/logs.js';
import { tokenRequest } from '../helpers/security-flows.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';

/**
 * /admin/v1/users through HTTP on the memory store: local users created with a password
 * (write-only, scrypt, never answered), changed by merge patch, disabled (sign-in and
 * refresh refused, grants revoked), their password set, deleted; USERS_FILE's read-only;
 * federated users who signed in listed, read-only but for disabled.
 */

const CLIENTS = [
  ...ADMIN_CLIENTS,
  { client_id: 'legacy', client_secret_hash: hashClientSecret(ADMIN_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read' },
  // A person's own admin tool: their token names them (sub), not the client.
  {
    client_id: 'admin-tool',
    client_secret_hash: hashClientSecret(ADMIN_SECRET),
    grant_types: ['password'],
    scope: 'admin:read admin:write',
  },
];

async function server(t: Test) {
  const logs = capturedLogger('trace');
  const s = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), logger: logs.logger });
  const api = adminCalls(s.app, await adminToken(s.app, 'operator'));
  const signIn = (username: string, password: string) =>
    tokenRequest(s.app, 'legacy', ADMIN_SECRET, { grant_type: 'password', username, password });
  return { ...s, api, logs, signIn, now: Math.floor(s.clock.now / 1000) };
}

const REFUSED_SIGN_IN = { error: 'invalid_grant', error_description: 'invalid username or password' };

t.test('POST /admin/v1/users: a local user with a password (never answered), signing in at once', async (t) => {
  const { api, signIn, now, logs } = await server(t);
  const created = await api.post('/users', {
    username: 'carol',
    password: 'carol-password-1',
    claims: { email: 'carol@example.com', email_verified: true },
    roles: ['admin'],
  });
  t.same([created.statusCode, created.headers.etag, created.headers.location], [201, '"user-1"', `${ISSUER}/admin/v1/users/carol`]);
  t.same(created.json(), {
    sub: 'carol',
    username: 'carol',
    claims: { email: 'carol@example.com', email_verified: true },
    roles: ['admin'],
    disabled: false,
    source: 'admin',
    created_at: now,
    updated_at: now,
  });
  t.equal((await signIn('carol', 'carol-password-1')).statusCode, 200, 'signs in at once');
  const read = await api.get('/users/carol');
  t.same([read.statusCode, read.headers.etag, read.json()], [200, '"user-1"', created.json()]);
  t.equal(/scrypt|password/.test(read.body), false, 'no password, no hash');
  const problem = (errors: { field: string; problem: string }[], detail: string) => validationFailure(detail, errors);
  expectProblem(
    t,
    await api.post('/users', { username: 'dave', password: 'short' }),
    problem([{ field: 'password', problem: 'must have at least 8 characters' }], 'the body has invalid fields'),
  );
  expectProblem(
    t,
    await api.post('/users', { username: 'dave', password: 'dave-password-1', password_hash: 'scrypt$x', roles: ['root'] }),
    problem(
      [
        { field: 'roles.0', problem: 'must be one of admin' },
        { field: 'password_hash', problem: 'unknown field' },
      ],
      'the body has invalid fields',
    ),
  );
  expectProblem(t, await api.post('/users', { username: 'alice', password: 'alice-password-2' }), {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: 'user "alice" is declared in USERS_FILE: change it there',
  });
  t.same(adminChanges(logs.lines()), [
    {
      actor: { client_id: 'operator' },
      entity: 'user',
      id: 'carol',
      action: 'created',
      fields: ['claims', 'password', 'roles', 'username'],
    },
  ]);
  t.equal(logs.text().includes('carol-password-1'), false, 'the password in no log line, at trace');
});

t.test('PATCH, disabled, PUT …/password, DELETE: each served at once, each audited by field name', async (t) => {
  const { app, api, signIn, logs } = await server(t);
  await api.post('/users', { username: 'erin', password: 'erin-password-1', sub: 'user-erin' });
  const patched = await api.patch('/users/user-erin', { claims: { name: 'Erin' }, roles: ['admin'] }, '"user-1"');
  t.same(
    [patched.statusCode, patched.headers.etag, patched.json().claims, patched.json().roles],
    [200, '"user-2"', { name: 'Erin' }, ['admin']],
  );
  expectProblem(t, await api.patch('/users/user-erin', { roles: null }, '"user-1"'), {
    status: 412,
    type: 'precondition-failed',
    title: 'The entry changed since it was read (If-Match)',
    detail: 'If-Match does not name the current version of this entry: read it again',
  });
  expectProblem(t, await api.patch('/users/user-erin', { sub: 'someone-else' }), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: 'sub cannot change',
    errors: [{ field: 'sub', problem: 'must be "user-erin", the user\'s sub' }],
  });
  const tokens = (await signIn('erin', 'erin-password-1')).json() as { refresh_token: string };
  const disabled = await api.patch('/users/user-erin', { disabled: true });
  t.same([disabled.statusCode, disabled.json().disabled], [200, true]);
  t.same((await signIn('erin', 'erin-password-1')).json(), REFUSED_SIGN_IN, 'sign-in refused at once');
  const refreshed = await tokenRequest(app, 'legacy', ADMIN_SECRET, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.same(refreshed.json().error, 'invalid_grant', 'refresh refused');
  t.same((await api.patch('/users/user-erin', { disabled: false })).json().disabled, false);

  const set = await api.put('/users/user-erin/password', { password: 'erin-new-password' });
  t.same([set.statusCode, set.body], [204, '']);
  t.match(set.headers.etag, /^"user-\d+"$/);
  t.same((await signIn('erin', 'erin-password-1')).json(), REFUSED_SIGN_IN, 'the old password no more');
  t.equal((await signIn('erin', 'erin-new-password')).statusCode, 200);
  expectProblem(t, await api.put('/users/user-erin/password', { password: 'tiny' }), {
    status: 400,
    type: 'validation',
    title: 'The request is not valid',
    detail: 'the body has invalid fields',
    errors: [{ field: 'password', problem: 'must have at least 8 characters' }],
  });
  expectProblem(t, await api.put('/users/user-erin/password', { password: 'erin-password-3' }, '"user-1"'), {
    status: 412,
    type: 'precondition-failed',
    title: 'The entry changed since it was read (If-Match)',
    detail: `user "user-erin" is at rev ${set.headers.etag?.slice(6, -1)}, not 1: read it again`,
  });
  t.equal((await api.delete('/users/user-erin', set.headers.etag)).statusCode, 204);
  t.same((await signIn('erin', 'erin-new-password')).json(), REFUSED_SIGN_IN, 'deleted: no sign-in');
  expectProblem(t, await api.get('/users/user-erin'), {
    status: 404,
    type: 'not-found',
    title: 'Not found',
    detail: 'no user "user-erin"',
  });
  t.same(
    adminChanges(logs.lines()).map((c) => [c.action, c.fields]),
    [
      ['created', ['password', 'sub', 'username']],
      ['updated', ['claims', 'roles']],
      ['disabled', ['disabled']],
      ['enabled', ['disabled']],
      ['password_set', ['password']],
      ['deleted', []],
    ],
  );
  t.equal(/erin-(new-)?password/.test(logs.text()), false, 'no password in any log line');
});

t.test('an administrator does not disable, demote or delete themselves through the API; another administrator may', async (t) => {
  const { app, api, logs } = await server(t);
  await api.post('/users', { username: 'root', password: 'root-password-1', sub: 'user-root', roles: ['admin'] });
  const token = await tokenRequest(app, 'admin-tool', ADMIN_SECRET, {
    grant_type: 'password',
    username: 'root',
    password: 'root-password-1',
    scope: 'admin:read admin:write',
    resource: ADMIN_API,
  });
  t.equal(token.json().scope, 'admin:read admin:write', "root's own token for the admin API");
  const own = adminCalls(app, (token.json() as { access_token: string }).access_token);
  const refused = (detail: string) => ({
    status: 409,
    type: 'conflict-self',
    title: 'Nobody disables, demotes or deletes their own account: another administrator has to',
    detail,
  });
  expectProblem(
    t,
    await own.patch('/users/user-root', { roles: null }, '"user-1"'),
    refused('you cannot remove the role admin from your own account: another administrator has to'),
  );
  expectProblem(
    t,
    await own.patch('/users/user-root', { roles: [] }),
    refused('you cannot remove the role admin from your own account: another administrator has to'),
  );
  expectProblem(
    t,
    await own.patch('/users/user-root', { disabled: true }),
    refused('you cannot disable your own account: another administrator has to'),
  );
  expectProblem(
    t,
    await own.delete('/users/user-root', '"user-1"'),
    refused('you cannot delete your own account: another administrator has to'),
  );
  const read = await own.get('/users/user-root');
  t.same([read.headers.etag, read.json().roles, read.json().disabled], ['"user-1"', ['admin'], false], 'nothing was written');

  const renamed = await own.patch('/users/user-root', { claims: { name: 'Root' } }, '"user-1"');
  t.same(
    [renamed.statusCode, renamed.json().claims, renamed.json().roles],
    [200, { name: 'Root' }, ['admin']],
    'their own name they may change',
  );
  const demoted = await api.patch('/users/user-root', { roles: null });
  t.same([demoted.statusCode, demoted.json().roles], [200, []], 'another administrator (the operator client) may demote them');
  t.same(
    adminChanges(logs.lines()).map((c) => [c.actor, c.action, c.fields]),
    [
      [{ client_id: 'operator' }, 'created', ['password', 'roles', 'sub', 'username']],
      [{ sub: 'user-root' }, 'updated', ['claims']],
      [{ client_id: 'operator' }, 'updated', ['roles']],
    ],
    'the refusals wrote and audited nothing',
  );
});

t.test("USERS_FILE's users: listed and read; changing them is a 409 naming the file", async (t) => {
  const { api } = await server(t);
  const read = await api.get('/users/user-alice');
  t.match(read.headers.etag, /^"file-/);
  t.same(read.json(), { sub: 'user-alice', username: 'alice', claims: {}, roles: [], disabled: false, source: 'file' });
  const conflict = {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: 'user "user-alice" is declared in USERS_FILE: change it there',
  };
  expectProblem(t, await api.patch('/users/user-alice', { disabled: true }), conflict);
  expectProblem(t, await api.put('/users/user-alice/password', { password: 'alice-password-2' }), conflict);
  expectProblem(t, await api.delete('/users/user-alice'), conflict);
});

t.test('federated users who signed in: listed (provider, last sign-in, claims), read-only but for disabled', async (t) => {
  const { api, store, clock, advance, entrySync } = await server(t);
  const ada = federatedSubject('corp', 'ada-upstream-id');
  const signedInAt = Math.floor(clock.now / 1000);
  await store.upstream.saveFederatedProfile(ada, { email: 'ada@corp.example.com', name: 'Ada' }, 3600, 'corp');
  await advance(10);
  await api.post('/users', { username: 'frank', password: 'frank-password-1' });
  const view = {
    sub: ada,
    claims: { email: 'ada@corp.example.com', name: 'Ada' },
    disabled: false,
    source: 'federated',
    provider: 'corp',
    last_sign_in_at: signedInAt,
  };
  const read = await api.get(`/users/${ada}`);
  t.same([read.statusCode, read.headers.etag, read.json()], [200, '"subject-0"', view]);
  const subs = async (query: string) => ((await api.get(`/users?${query}`)).json().items as { sub: string }[]).map((u) => u.sub);
  t.same(await subs(''), ['user-alice', 'bob', 'frank', ada], 'file, the API’s, then federated');
  t.same(await subs('source=federated'), [ada]);
  t.same(await subs('q=corp.example'), [ada], 'q on the email a provider gave');
  const first = (await api.get('/users?limit=3')).json();
  t.same((await api.get(`/users?limit=3&cursor=${first.next}`)).json(), { items: [view] });

  const conflict = (detail: string) => ({
    status: 409,
    type: 'conflict-federated',
    title: 'The user signs in through an identity provider: only disabled can change here',
    detail: `user "${ada}" signs in through an identity provider: ${detail}`,
  });
  expectProblem(t, await api.patch(`/users/${ada}`, { claims: { name: 'Eve' } }), conflict('only disabled can change here, not claims'));
  expectProblem(t, await api.delete(`/users/${ada}`), conflict('it can only be disabled here'));
  expectProblem(t, await api.put(`/users/${ada}/password`, { password: 'federated-1' }), conflict('it has no password here'));
  expectProblem(t, await api.patch(`/users/${ada}`, { disabled: true }, '"subject-1"'), {
    status: 412,
    type: 'precondition-failed',
    title: 'The entry changed since it was read (If-Match)',
    detail: 'If-Match does not name the current version of this entry: read it again',
  });
  const disabled = await api.patch(`/users/${ada}`, { disabled: true }, '"subject-0"');
  t.same([disabled.statusCode, disabled.headers.etag, disabled.json().disabled], [200, '"subject-1"', true]);
  t.same(entrySync.entry('subject', ada)?.document, { disabled: true, sessions_revoked_at: signedInAt + 10 }, 'the subject mark');
  const unknown = federatedSubject('corp', 'never-signed-in');
  expectProblem(t, await api.get(`/users/${unknown}`), {
    status: 404,
    type: 'not-found',
    title: 'Not found',
    detail: `no user "${unknown}"`,
  });
  const marked = await api.patch(`/users/${unknown}`, { disabled: true });
  t.same(
    [marked.statusCode, marked.json()],
    [200, { sub: unknown, claims: {}, disabled: true, source: 'federated' }],
    'disabled before they ever sign in',
  );
});

import t, { type Test } from 'tap';
import { newClientSecret } from '../../src/admin/clients.js';
import { AdminProblem } from '../../src/admin/problems.js';
import type { EntryStore } from '../../src/store/entry-types.js';
import { AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { codeRequest } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { codeFlowClient, refreshTokenOf, tokenRequest } from '../helpers/security-flows.js';
import { buildTestServer } from '../helpers/server.js';

/**
 * Clients created, changed, disabled and deleted through the admin service (src/admin/clients.ts),
 * on one instance with the memory store: the token and authorization endpoints honour each
 * change at once, and find an admin-created client without asking the store.
 */

/** What a refused change threw, as the API would answer it. */
async function problemOf(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof AdminProblem)) throw err;
    return { type: err.type, status: err.status, title: err.title, detail: err.detail, errors: err.errors };
  }
  throw new Error('no problem');
}

/**
 * Counts the calls to every method of the entry store that reads or writes entries from now on.
 * Not `entriesVersion`: the sync's periodic version check (every ENTRIES_SYNC_INTERVAL) asks it
 * in the background, and on a loaded host a test can outlast that interval (seen in CI).
 */
function countCalls(t: Test, entries: EntryStore): { count: number } {
  const counter = { count: 0 };
  const target = entries as unknown as Record<string, unknown>;
  for (const name of ['createEntry', 'replaceEntry', 'deleteEntry', 'getEntry', 'listEntries', 'readAllEntries']) {
    const original = target[name] as (...args: unknown[]) => unknown;
    target[name] = (...args: unknown[]) => {
      counter.count += 1;
      return original.apply(entries, args);
    };
    t.teardown(() => {
      target[name] = original;
    });
  }
  return counter;
}

const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="https://as.example.com", charset="UTF-8"' };

const server = (t: Test) => buildTestServer(t, { clients: AUTHORIZE_CLIENTS, users: testUsers() });

function serviceClient(clientId: string, hash: string, extra: Record<string, unknown> = {}) {
  return { client_id: clientId, client_secret_hash: hash, grant_types: ['client_credentials'], scope: 'read', ...extra };
}

t.test('a client created through the admin service gets tokens at once, without a store round trip', async (t) => {
  const s = await server(t);
  const { secret, hash } = newClientSecret();
  const entry = await s.admin.clients.create(serviceClient('reporting', hash));
  t.match(entry, { kind: 'client', id: 'reporting', rev: 1, document: serviceClient('reporting', hash) });
  t.equal(s.registries.clients.held('reporting')?.source, 'store', 'served from the store entry');
  const calls = countCalls(t, s.store.entries);
  const res = await tokenRequest(s.app, 'reporting', secret, { grant_type: 'client_credentials' });
  t.equal(res.statusCode, 200);
  t.equal(res.json().scope, 'read');
  t.equal(calls.count, 0, 'the token endpoint found the client in the in-process copy');
  expectOAuthError(t, await tokenRequest(s.app, 'reporting', 'wrong-secret', { grant_type: 'client_credentials' }), {
    status: 401,
    error: 'invalid_client',
    headers: BASIC_CHALLENGE,
  });
});

t.test('refused: an id of CLIENTS_FILE, an id taken, an invalid document, a user sub for client_credentials', async (t) => {
  const s = await server(t);
  const { hash } = newClientSecret();
  t.same(await problemOf(s.admin.clients.create(serviceClient('web', hash))), {
    type: 'urn:oauth2-token-service:problem:conflict-file-entry',
    status: 409,
    title: 'The entry comes from a file and is read-only here',
    detail: 'client "web" is declared in CLIENTS_FILE: change it there',
    errors: [],
  });
  await s.admin.clients.create(serviceClient('reporting', hash));
  t.same(await problemOf(s.admin.clients.create(serviceClient('reporting', hash))), {
    type: 'urn:oauth2-token-service:problem:conflict-exists',
    status: 409,
    title: 'An entry with this id exists already',
    detail: 'client "reporting" exists already',
    errors: [],
  });
  const invalid = await problemOf(
    s.admin.clients.create({
      client_id: 'bad',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['https://app.example.com/cb#fragment'],
      colour: 'blue',
    }),
  );
  t.match(invalid, { type: 'urn:oauth2-token-service:problem:validation', status: 400, title: 'The request is not valid' });
  t.same(invalid.errors, [
    { field: 'redirect_uris.0', problem: 'must not have a fragment' },
    { field: 'entry', problem: 'Unrecognized key: "colour"' },
  ]);
  t.same((await problemOf(s.admin.clients.create(serviceClient('user-alice', hash)))).errors, [
    { field: 'client_id', problem: "is the sub of a user: its client_credentials tokens would carry a user's sub (RFC 9700 §4.15)" },
  ]);
  t.equal(await s.store.entries.getEntry('client', 'bad'), undefined, 'nothing written');
  t.equal(await s.store.entries.entriesVersion(), 1, 'only the one client created');
});

t.test('replaced with the right rev: honoured at once; with a stale one: 412 and nothing written', async (t) => {
  const s = await server(t);
  const { secret, hash } = newClientSecret();
  await s.admin.clients.create(serviceClient('reporting', hash));
  const changed = serviceClient('reporting', hash, { scope: 'read write' });
  const replaced = await s.admin.clients.replace('reporting', changed, 1);
  t.equal(replaced.rev, 2);
  t.same(await problemOf(s.admin.clients.replace('reporting', serviceClient('reporting', hash), 1)), {
    type: 'urn:oauth2-token-service:problem:precondition-failed',
    status: 412,
    title: 'The entry changed since it was read (If-Match)',
    detail: 'client "reporting" is at rev 2, not 1: read it again',
    errors: [],
  });
  const res = await tokenRequest(s.app, 'reporting', secret, { grant_type: 'client_credentials', scope: 'write' });
  t.equal(res.json().scope, 'write', 'the new scope, not the stale write');
  t.same((await problemOf(s.admin.clients.replace('reporting', serviceClient('other', hash)))).errors, [
    { field: 'client_id', problem: 'must be "reporting", the client\'s id' },
  ]);
  t.match(await problemOf(s.admin.clients.replace('nobody', serviceClient('nobody', hash))), {
    status: 404,
    detail: 'client "nobody" does not exist',
  });
  t.match(await problemOf(s.admin.clients.replace('web', AUTHORIZE_CLIENTS[0] as Record<string, unknown>)), { status: 409 });
});

t.test('disabled: refused at every endpoint, its grants revoked (enabled again, its old refresh tokens stay dead)', async (t) => {
  const s = await server(t);
  const { secret, hash } = newClientSecret();
  await s.admin.clients.create(codeFlowClient('portal', hash));
  const refreshToken = await refreshTokenOf(s.app, 'portal', secret);
  const disabled = await s.admin.clients.setDisabled('portal', true);
  t.equal(disabled.revokedGrants, 1, "alice's grant revoked");
  t.equal(disabled.entry.document.disabled, true);
  expectOAuthError(t, await tokenRequest(s.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken }), {
    status: 401,
    error: 'invalid_client',
    headers: BASIC_CHALLENGE,
  });
  const authorize = await s.app.inject({
    url: `/oauth2/authorize?${new URLSearchParams(codeRequest('portal', WEB_REDIRECT, 'x'.repeat(43)))}`,
  });
  t.equal(authorize.statusCode, 400, 'the authorization endpoint does not know it either');
  t.equal(s.registries.clients.get('portal'), undefined);
  t.notOk(
    s.registries.clients.all().some((client) => client.clientId === 'portal'),
    'nor does discovery',
  );

  const enabled = await s.admin.clients.setDisabled('portal', false);
  t.same(enabled, { entry: { ...enabled.entry, rev: 3 }, revokedGrants: 0 });
  t.equal(enabled.entry.document.disabled, undefined, 'the flag is gone from the document');
  const refreshed = await tokenRequest(s.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken });
  t.equal(refreshed.statusCode, 400);
  t.equal(refreshed.json().error, 'invalid_grant', 'the grant stayed revoked');
  t.ok((await refreshTokenOf(s.app, 'portal', secret)).length > 0, 'a new grant works');
});

t.test('deleted: unknown everywhere, its grants revoked; the id is free again', async (t) => {
  const s = await server(t);
  const { secret, hash } = newClientSecret();
  await s.admin.clients.create(codeFlowClient('portal', hash));
  const refreshToken = await refreshTokenOf(s.app, 'portal', secret);
  t.same(await problemOf(s.admin.clients.delete('portal', 7)), {
    type: 'urn:oauth2-token-service:problem:precondition-failed',
    status: 412,
    title: 'The entry changed since it was read (If-Match)',
    detail: 'client "portal" is at rev 1, not 7: read it again',
    errors: [],
  });
  t.same(await s.admin.clients.delete('portal', 1), { revokedGrants: 1 });
  expectOAuthError(t, await tokenRequest(s.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken }), {
    status: 401,
    error: 'invalid_client',
    headers: BASIC_CHALLENGE,
  });
  t.match(await problemOf(s.admin.clients.delete('portal')), { status: 404 });
  t.match(await problemOf(s.admin.clients.delete('web')), { status: 409 });
  await s.admin.clients.create(codeFlowClient('portal', hash));
  const refreshed = await tokenRequest(s.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken });
  t.equal(refreshed.json().error, 'invalid_grant', 'created again, the old grant stays revoked');
});

t.test('a dynamically registered client: its id is taken, and it can be deleted', async (t) => {
  const s = await buildTestServer(t, { env: { DYNAMIC_CLIENT_REGISTRATION: 'open' } });
  const registered = await s.app.inject({
    method: 'POST',
    url: '/oauth2/register',
    payload: { redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'none' },
  });
  const clientId = registered.json().client_id as string;
  const { hash } = newClientSecret();
  t.match(await problemOf(s.admin.clients.create(serviceClient(clientId, hash))), {
    status: 409,
    detail: `client "${clientId}" is a dynamically registered client`,
  });
  t.same(await s.admin.clients.deleteRegistration(clientId), { revokedGrants: 0 });
  t.equal(await s.store.clientRegistrations.findClientRegistration(clientId), undefined);
  t.match(await problemOf(s.admin.clients.deleteRegistration(clientId)), {
    status: 404,
    detail: `no dynamically registered client "${clientId}"`,
  });
});

t.test('CLIENTS_FILE gains "disabled": such a client is unknown to every endpoint', async (t) => {
  const { secret, hash } = newClientSecret();
  const s = await buildTestServer(t, { clients: [serviceClient('paused', hash, { disabled: true })] });
  expectOAuthError(t, await tokenRequest(s.app, 'paused', secret, { grant_type: 'client_credentials' }), {
    status: 401,
    error: 'invalid_client',
    headers: BASIC_CHALLENGE,
  });
  t.equal(s.registries.clients.held('paused')?.source, 'file', 'held, for the admin API to show');
});

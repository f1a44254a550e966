import t from 'tap';
import { AdminProblem } from '../../src/admin/problems.js';
import { SEALED_CLIENT_SECRET } from '../../src/entries/registries.js';
import { buildTestServer } from '../helpers/server.js';

/** Resources and identity providers through the admin services, on the memory store. */

const KEY = 'entries-encryption-key-0123456789abcdef';
const CORP = {
  id: 'corp',
  type: 'oidc',
  name: 'Corp',
  issuer: 'https://login.corp.example.com',
  client_id: 'ours',
  client_secret: 'upstream-secret',
};

async function problemOf(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof AdminProblem)) throw err;
    return { problem: err.code, status: err.status, detail: err.detail, errors: err.errors };
  }
  throw new Error('no problem');
}

t.test('resources: created, served at once, replaced, deleted; one of RESOURCES_FILE is read-only', async (t) => {
  const s = await buildTestServer(t, { resources: [{ resource: 'https://files.example.com/', scope: 'read' }] });
  const api = { resource: 'https://api.example.com/', name: 'API', scope: 'read write' };
  t.match(await s.admin.resources.create(api), { kind: 'resource', id: 'https://api.example.com/', rev: 1 });
  t.same(s.registries.resources.get('https://api.example.com/')?.scope, ['read', 'write']);
  t.equal((await s.admin.resources.replace(api.resource, { ...api, scope: 'read' }, 1)).rev, 2);
  t.same(s.registries.resources.get('https://api.example.com/')?.scope, ['read']);
  t.same(await problemOf(s.admin.resources.create({ resource: 'https://files.example.com/' })), {
    problem: 'conflict-file-entry',
    status: 409,
    detail: 'resource "https://files.example.com/" is declared in RESOURCES_FILE: change it there',
    errors: [],
  });
  t.same((await problemOf(s.admin.resources.create({ resource: 'https://API.example.com/#x' }))).errors, [
    { field: 'resource', problem: 'must not have a fragment (RFC 8707 §2)' },
    { field: 'resource', problem: 'the host must be in lowercase' },
  ]);
  await s.admin.resources.delete(api.resource, 2);
  t.equal(s.registries.resources.get(api.resource), undefined);
});

t.test('providers: the client secret sealed in the store (write-only), kept by a replace without one; a key is needed', async (t) => {
  const s = await buildTestServer(t, { providers: [], env: { ENTRIES_ENCRYPTION_KEY: KEY, IDENTITY_PROVIDERS_ALLOW_INSECURE: 'false' } });
  const entry = await s.admin.providers.create(CORP);
  t.equal(entry.document.client_secret, undefined, 'never in clear in the store');
  t.match(entry.document[SEALED_CLIENT_SECRET], /^v1\.[\w-]{8}\.[\w-]+$/);
  t.equal(JSON.stringify(await s.store.entries.readAllEntries()).includes('upstream-secret'), false);
  const { client_secret: _secret, ...withoutSecret } = CORP;
  await s.admin.providers.replace('corp', { ...withoutSecret, name: 'Corp SSO' }, 1);
  const held = await s.store.entries.getEntry('provider', 'corp');
  t.equal(held?.document.name, 'Corp SSO');
  t.equal(held?.document[SEALED_CLIENT_SECRET] === entry.document[SEALED_CLIENT_SECRET], false, 'sealed again (a fresh IV)');
  t.same((await problemOf(s.admin.providers.create({ ...CORP, id: 'http', issuer: 'http://login.example.com' }))).errors, [
    { field: 'issuer', problem: 'must be an https URL (http only with IDENTITY_PROVIDERS_ALLOW_INSECURE=true)' },
  ]);
  await s.admin.providers.delete('corp');
  t.equal(await s.store.entries.getEntry('provider', 'corp'), undefined);

  const keyless = await buildTestServer(t, { providers: [] });
  t.same(await problemOf(keyless.admin.providers.create(CORP)), {
    problem: 'validation',
    status: 400,
    detail: 'client_secret cannot be stored: set ENTRIES_ENCRYPTION_KEY, the key provider secrets are sealed under',
    errors: [
      { field: 'client_secret', problem: 'cannot be stored: set ENTRIES_ENCRYPTION_KEY, the key provider secrets are sealed under' },
    ],
  });
});

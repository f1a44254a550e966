import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { followEntries, SEALED_CLIENT_SECRET } from '../../src/entries/registries.js';
import { SealedSecrets } from '../../src/entries/sealed-secrets.js';
import { EntrySync } from '../../src/entries/sync.js';
import { ProviderRegistry } from '../../src/identity/providers.js';
import { logReloads, Registries } from '../../src/registries.js';
import { writeRegistryEntries } from '../../src/registry/file.js';
import { ResourceRegistry } from '../../src/resources/registry.js';
import { MemoryEntries } from '../../src/store/memory-entries.js';
import { UserRegistry } from '../../src/users/registry.js';
import { WorkloadTrustRegistry } from '../../src/workloads/trusts.js';
import { SubjectStatus } from '../../src/users/subject-status.js';
import { tempDir } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { until } from '../helpers/sign-in.js';

/**
 * The store's entries in the registries (src/entries/registries.ts, src/registry/registry.ts):
 * validated by the file schemas, merged with the file's entries (which win), the subject
 * marks; and a reload that adds a file entry the store holds.
 */

const KEY = 'entries-encryption-key-0123456789abcdef';
const client = (id: string, extra: Record<string, unknown> = {}) => ({
  client_id: id,
  client_secret_hash: hashClientSecret('s'.repeat(43)),
  grant_types: ['client_credentials'],
  scope: 'read',
  ...extra,
});
const provider = (id: string) => ({
  id,
  type: 'oidc',
  name: 'Corp',
  issuer: 'https://login.corp.example.com',
  client_id: 'our-client',
  client_secret: 'upstream-secret',
});

interface Followed {
  readonly entries: MemoryEntries;
  readonly sync: EntrySync;
  readonly clients: ClientRegistry;
  readonly users: UserRegistry;
  readonly resources: ResourceRegistry;
  readonly providers: ProviderRegistry;
  readonly subjects: SubjectStatus;
  readonly warnings: { message: string; fields: Record<string, unknown> }[];
  /** Resolves once the copy is at the store's version. */
  settled(): Promise<void>;
}

async function followed(t: Test, files: { clients?: unknown[]; users?: unknown[] } = {}, key: string | null = KEY): Promise<Followed> {
  const entries = new MemoryEntries(() => 1_800_000_000_000);
  const sync = new EntrySync(entries, { intervalSeconds: 3600 });
  const registries = {
    clients: ClientRegistry.fromMetadata(files.clients ?? []),
    users: UserRegistry.fromEntries(files.users ?? []),
    resources: ResourceRegistry.fromEntries([]),
    providers: ProviderRegistry.empty(),
  };
  const warnings: Followed['warnings'] = [];
  const log = { info: () => undefined, warn: (fields: Record<string, unknown>, message: string) => warnings.push({ message, fields }) };
  const marks = followEntries(sync, registries, {
    log,
    secrets: key === null ? undefined : new SealedSecrets(key),
    providersAllowHttp: false,
  });
  sync.start(log);
  t.teardown(() => sync.stop());
  await sync.ready(1000);
  const settled = async () => {
    const version = await entries.entriesVersion();
    await until(() => sync.version === version, `version ${version}`);
  };
  return { entries, sync, ...registries, subjects: new SubjectStatus(registries.users, marks), warnings, settled };
}

t.test("a store client is served beside the file's; one claiming a file client's id is shadowed, logged once", async (t) => {
  const f = await followed(t, { clients: [client('web')] });
  await f.entries.createEntry('client', 'reporting', client('reporting'));
  await f.entries.createEntry('client', 'web', client('web', { scope: 'write' }));
  await f.entries.createEntry('client', 'other', client('other'));
  await f.settled();
  t.same(
    f.clients.listed().map((held) => [held.key, held.source, held.stored?.rev]),
    [
      ['web', 'file', undefined],
      ['reporting', 'store', 1],
      ['other', 'store', 1],
    ],
  );
  t.same(f.clients.get('web')?.scope, ['read'], "the file's entry");
  t.same(f.warnings, [
    { message: 'entries: a store entry claims what a file entry holds; the file entry is served', fields: { kind: 'client', key: 'web' } },
  ]);
  t.equal(f.clients.claimedByFile('web'), true);
  t.equal(f.clients.claimedByFile('reporting'), false);
});

t.test('a store entry that does not validate is skipped with one line, the others served', async (t) => {
  const f = await followed(t);
  await f.entries.createEntry('client', 'broken', { client_id: 'broken', grant_types: ['teleport'] });
  await f.entries.createEntry('client', 'renamed', client('not-renamed'));
  await f.entries.createEntry('client', 'fine', client('fine'));
  await f.entries.createEntry('client', 'fine-2', client('fine-2'));
  await f.settled();
  t.same(
    f.clients.all().map((c) => c.clientId),
    ['fine', 'fine-2'],
  );
  t.same(
    f.warnings.map((w) => [w.fields.id, w.fields.problems]),
    [
      [
        'broken',
        [
          'store: client "broken": grant_types.0: Invalid option: expected one of "authorization_code"|"implicit"|"password"|"client_credentials"|"refresh_token"|"urn:ietf:params:oauth:grant-type:token-exchange"|"urn:ietf:params:oauth:grant-type:jwt-bearer"|"urn:ietf:params:oauth:grant-type:device_code"',
        ],
      ],
      ['renamed', ["client_id: is not the entry's id"]],
    ],
    'one line each, not one per change',
  );
});

t.test("a reload adding a file entry whose id the store holds refuses it (one line), and takes the file's other entries", async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'clients.json');
  await writeRegistryEntries(file, 'clients', [client('web')]);
  const registries = await Registries.open({ clients: file, users: undefined }, { sources: { clients: file, users: 'USERS_FILE' } });
  const entries = new MemoryEntries(() => 1_800_000_000_000);
  const sync = new EntrySync(entries, { intervalSeconds: 3600 });
  const log = { info: () => undefined, warn: () => undefined };
  followEntries(sync, registries, { log, secrets: undefined, providersAllowHttp: false });
  sync.start(log);
  t.teardown(() => sync.stop());
  await entries.createEntry('client', 'reporting', client('reporting', { scope: 'write' }));
  await until(() => registries.clients.get('reporting') !== undefined, 'the store client');
  await writeRegistryEntries(file, 'clients', [client('web'), client('reporting'), client('cli')]);
  const results = await registries.reload();
  t.same(results, [{ registry: 'clients', file, ok: true, count: 2, refused: ['reporting'] }]);
  t.same(
    registries.clients.listed().map((held) => [held.key, held.source]),
    [
      ['web', 'file'],
      ['cli', 'file'],
      ['reporting', 'store'],
    ],
  );
  t.same(registries.clients.get('reporting')?.scope, ['write'], "the store's entry stays");
  const lines: unknown[][] = [];
  logReloads(results, 'SIGHUP', { info: (...args) => lines.push(['info', ...args]), error: (...args) => lines.push(['error', ...args]) });
  t.same(lines, [
    ['info', { reason: 'SIGHUP', file, clients: 2 }, 'clients reloaded'],
    [
      'error',
      { reason: 'SIGHUP', file, id: 'reporting' },
      "clients reload: an entry added to the file is refused, its id is the admin API's (in the store)",
    ],
  ]);
});

t.test('users: a store user claims its username and its sub; disabled by the file, the store or a mark', async (t) => {
  const f = await followed(t, {
    users: [{ username: 'alice', password_hash: cheapPasswordHash('alice-password'), sub: 'user-alice', disabled: true }],
  });
  await f.entries.createEntry('user', 'carol', { username: 'carol', password_hash: cheapPasswordHash('carol-password') });
  await f.entries.createEntry('user', 'dave', { username: 'dave', password_hash: cheapPasswordHash('dave-password'), disabled: true });
  await f.entries.createEntry('user', 'alice-2', { username: 'alice', password_hash: cheapPasswordHash('x'), sub: 'alice-2' });
  await f.entries.createEntry('user', 'user-alice', { username: 'eve', password_hash: cheapPasswordHash('x'), sub: 'user-alice' });
  await f.entries.createEntry('subject', 'fed_corp_1', { disabled: true, sessions_revoked_at: 1_800_000_000 });
  await f.entries.createEntry('subject', 'carol', { disabled: false, sessions_revoked_at: 1_800_000_100 });
  await f.settled();
  t.same(
    f.users.listed().map((held) => [held.key, held.source]),
    [
      ['alice', 'file'],
      ['carol', 'store'],
      ['dave', 'store'],
    ],
    "a store user with a file user's username or sub is shadowed",
  );
  t.same(await f.users.authenticate('carol', 'carol-password'), { username: 'carol', sub: 'carol', claims: {}, roles: [] });
  t.same(
    ['user-alice', 'carol', 'dave', 'fed_corp_1', 'fed_corp_2'].map((sub) => f.subjects.isDisabled(sub)),
    [true, false, true, true, false],
  );
  t.same(
    [1_800_000_100, 1_800_000_101].map((at) => f.subjects.sessionStands('carol', at)),
    [false, true],
    'sessions issued at or before sessions_revoked_at have ended',
  );
  t.equal(f.subjects.sessionStands('fed_corp_2', 0), true, 'no mark');
});

t.test('providers: the client secret sealed in the store, opened with ENTRIES_ENCRYPTION_KEY', async (t) => {
  const secrets = new SealedSecrets(KEY);
  const sealed = (id: string, under = secrets) => {
    const { client_secret: secret, ...rest } = provider(id);
    return { ...rest, [SEALED_CLIENT_SECRET]: under.seal(id, secret) };
  };
  const corp = sealed('corp');
  t.equal(JSON.stringify(corp).includes('upstream-secret'), false, 'never in clear');
  const f = await followed(t);
  await f.entries.createEntry('provider', 'corp', corp);
  await f.entries.createEntry('provider', 'moved', { ...corp, id: 'moved' });
  await f.entries.createEntry('provider', 'other-key', sealed('other-key', new SealedSecrets('another-key-0123456789abcdefghijklmn')));
  await f.settled();
  t.equal(f.providers.get('corp')?.client_secret, 'upstream-secret');
  t.same(f.providers.held('corp')?.document, corp, 'the document as stored: sealed');
  t.same(
    f.warnings.map((w) => [w.fields.id, w.fields.problems]),
    [
      ['moved', ['client_secret: the sealed client secret does not open (altered, or of another provider)']],
      ['other-key', ['client_secret: sealed under another ENTRIES_ENCRYPTION_KEY']],
    ],
  );
  const keyless = await followed(t, {}, null);
  await keyless.entries.createEntry('provider', 'corp', corp);
  await keyless.settled();
  t.equal(keyless.providers.size, 0);
  t.same(
    keyless.warnings.map((w) => w.fields.problems),
    [['its client secret is sealed, and ENTRIES_ENCRYPTION_KEY is not set']],
  );
});

t.test('resources and an unreadable subject mark', async (t) => {
  const f = await followed(t);
  await f.entries.createEntry('resource', 'https://api.example.com/', { resource: 'https://api.example.com/', scope: 'read' });
  await f.entries.createEntry('subject', 'bob', { disabled: 'yes' });
  await f.settled();
  t.same(f.resources.get('https://api.example.com/')?.scope, ['read']);
  t.equal(f.subjects.isDisabled('bob'), false, 'a mark that does not validate marks nothing');
  t.same(f.warnings, [{ message: 'entries: a store entry does not validate, skipped', fields: { kind: 'subject', id: 'bob', rev: 1 } }]);
});

t.test(
  "workload trusts of the store are served beside the file's, by issuer; one with an http URL is skipped, one claiming a file trust's issuer shadowed",
  async (t) => {
    const rules = [{ sub: 'spiffe://example.org/*', resources: ['https://mcp.example.com'], scope: 'tools:call' }];
    const trust = (id: string, issuer: string, extra: Record<string, unknown> = {}) => ({
      id,
      issuer,
      jwks_uri: `${issuer}/jwks`,
      rules,
      ...extra,
    });
    const workloads = WorkloadTrustRegistry.fromEntries([trust('ci', 'https://ci.example.com')]);
    const entries = new MemoryEntries(() => 1_800_000_000_000);
    const sync = new EntrySync(entries, { intervalSeconds: 3600 });
    const warnings: { message: string; fields: Record<string, unknown> }[] = [];
    const log = { info: () => undefined, warn: (fields: Record<string, unknown>, message: string) => warnings.push({ message, fields }) };
    const registries = {
      clients: ClientRegistry.fromMetadata([]),
      users: UserRegistry.fromEntries([]),
      resources: ResourceRegistry.fromEntries([]),
      workloads,
    };
    followEntries(sync, registries, { log, secrets: undefined, providersAllowHttp: false, workloadsAllowHttp: false });
    sync.start(log);
    t.teardown(() => sync.stop());
    await sync.ready(1000);
    await entries.createEntry('workload_trust', 'mesh', trust('mesh', 'https://mesh.example.com'));
    await entries.createEntry('workload_trust', 'plain', trust('plain', 'http://plain.example.com'));
    await entries.createEntry('workload_trust', 'ci-again', trust('ci-again', 'https://ci.example.com'));
    const version = await entries.entriesVersion();
    await until(() => sync.version === version, `version ${version}`);
    t.same(
      workloads.listed().map((held) => [held.key, held.source]),
      [
        ['ci', 'file'],
        ['mesh', 'store'],
      ],
    );
    t.equal(workloads.byIssuer('https://mesh.example.com')?.id, 'mesh', 'found by its issuer');
    t.equal(workloads.byIssuer('https://ci.example.com')?.id, 'ci', "the file's trust keeps its issuer");
    t.same(
      warnings.map((w) => [w.message, w.fields.id ?? w.fields.key]),
      [
        ['entries: a store entry does not validate, skipped', 'plain'],
        ['entries: a store entry claims what a file entry holds; the file entry is served', 'ci-again'],
      ],
    );
  },
);

import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { hashClientSecret, verifyClientSecret } from '../../src/clients/secret.js';
import { runCommand } from '../helpers/cli.js';
import { clientKey, jwksOf } from '../helpers/client-keys.js';
import { tempDir } from '../helpers/keys.js';
import { collision, PASSWORD_HASH, service, webApp } from '../helpers/subject-collision.js';

/** `oauth2-token-service clients …`, in-process: what each command prints, exits with and leaves in CLIENTS_FILE. */

const clients = (args: string[], env: Record<string, string> = {}) => runCommand(['clients', ...args], { env });
const load = (file: string) => ClientRegistry.load(file);
const SECRET_LINES = /client_secret: ([A-Za-z0-9_-]{43})\n\(shown once: only its hash is stored\)\n$/;

t.test('clients add', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'clients.json');

  t.test('registers a client and prints its 256-bit secret once; only the digest is stored, mode 0600', async (t) => {
    const run = await clients(['add', '--file', file, '--name', 'Reports', '--grant', 'client_credentials', '--scope', 'read reports']);
    t.same([run.code, run.stderr], [0, '']);
    const [, clientId, secret] =
      /^added client (client-[A-Za-z0-9_-]{16}) to .*\nclient_secret: ([A-Za-z0-9_-]{43})\n\(shown once: only its hash is stored\)\n$/.exec(
        run.stdout,
      ) ?? [];
    t.ok(clientId && secret, run.stdout);
    t.equal(Buffer.from(secret as string, 'base64url').length, 32, 'a 256-bit secret');
    t.notMatch(await readFile(file, 'utf8'), secret as string, 'the secret itself is not stored');
    t.equal((await stat(file)).mode & 0o777, 0o600);
    const client = (await load(file)).get(clientId as string);
    t.equal(client?.clientName, 'Reports');
    t.same(client?.scope, ['read', 'reports']);
    t.ok(verifyClientSecret(secret as string, client?.secretDigest));
  });

  t.test('takes CLIENTS_FILE without --file; a public client gets no secret; appends', async (t) => {
    const run = await clients(
      ['add', '--id', 'spa', '--auth-method', 'none', '--grant', 'authorization_code', '--redirect-uri', 'https://spa.example.com/cb'],
      { CLIENTS_FILE: file },
    );
    t.same([run.code, run.stdout, run.stderr], [0, `added client spa to ${file}\n`, '']);
    t.equal((await load(file)).all().length, 2, 'appended, the first client kept');
    const resourceServer = await clients(['add', '--id', 'rs', '--introspect-all-tokens'], { CLIENTS_FILE: file });
    t.equal(resourceServer.code, 0, resourceServer.stderr);
    t.equal((await load(file)).get('rs')?.introspectAllTokens, true, '--introspect-all-tokens marks a resource server');
    t.same([...((await load(file)).get('rs')?.grantTypes ?? [])], ['client_credentials'], 'client_credentials by default');
  });

  t.test('--grant device_code: a public client of the device flow (RFC 8628), without redirect URIs', async (t) => {
    const run = await clients([
      'add',
      '--file',
      file,
      '--id',
      'tv',
      '--auth-method',
      'none',
      '--grant',
      'device_code',
      '--grant',
      'refresh_token',
    ]);
    t.same([run.code, run.stdout, run.stderr], [0, `added client tv to ${file}\n`, '']);
    const tv = (await load(file)).get('tv');
    t.same([...(tv?.grantTypes ?? [])], ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token']);
    t.same([tv?.authMethod, tv?.redirectUris, tv?.secretDigest], ['none', [], undefined]);
  });

  t.test('a client the server would refuse is refused (exit 1) and the file is unchanged', async (t) => {
    const before = await readFile(file, 'utf8');
    const refusals: [string[], string][] = [
      [
        ['--id', 'bad', '--auth-method', 'none', '--grant', 'client_credentials'],
        `${file}: client "bad": grant_types: client_credentials needs a confidential client`,
      ],
      [
        [
          '--id',
          'pub',
          '--auth-method',
          'none',
          '--grant',
          'authorization_code',
          '--redirect-uri',
          'https://a.example/cb',
          '--introspect-all-tokens',
        ],
        `${file}: client "pub": introspect_all_tokens: a public client cannot introspect; only a confidential client may hold this right`,
      ],
      [['--id', 'spa'], `${file}: client "spa": client_id: registered twice`],
      [['--id', 'x', '--grant', 'teleport'], `${file}: client "x": grant_types.0: Invalid option: expected one of`],
    ];
    for (const [args, message] of refusals) {
      const run = await clients(['add', '--file', file, ...args]);
      t.equal(run.code, 1, args.join(' '));
      t.equal(run.stdout, '', 'no secret is printed for a client that was not stored');
      t.match(run.stderr, `error: ${message}`);
    }
    t.equal(await readFile(file, 'utf8'), before);
    t.same((await readdir(dir)).sort(), ['clients.json'], 'no temporary or lock file left behind');
  });

  t.test('needs a file (exit 2), refuses a file of another shape (exit 1), and a held lock (exit 1)', async (t) => {
    const none = await clients(['add']);
    t.same([none.code, none.stdout], [2, '']);
    t.match(none.stderr, /^error: name the clients file with --file or CLIENTS_FILE\nusage: oauth2-token-service clients add /);
    const other = join(dir, 'other.json');
    await writeFile(other, '{"nope": 1}');
    const corrupt = await clients(['add', '--file', other]);
    t.same([corrupt.code, corrupt.stderr], [1, `error: ${other}: expected {"clients": [...]}\n`]);
    // V8's message quotes the text around the error, here a planted secret hash: the message drops it.
    await writeFile(other, '{"clients": [{"client_secret_hash": sha256:planted-value}]}');
    const invalidJson = await clients(['add', '--file', other]);
    t.same(
      [invalidJson.code, invalidJson.stderr],
      [1, `error: ${other}: not valid JSON (Unexpected token 's')\n`],
      'no file content in the message',
    );

    const lock = join(dir, '.clients.json.lock');
    await writeFile(lock, '');
    const held = await clients(['add', '--file', file]);
    t.same(
      [held.code, held.stdout, held.stderr],
      [1, '', `error: another command is changing ${file} (it holds ${lock}); try again later\n`],
    );
  });
});

t.test('clients add keeps client ids and user subjects apart (USERS_FILE or --users-file)', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(usersFile, JSON.stringify({ users: [{ username: 'alice', password_hash: PASSWORD_HASH, sub: 'user-alice' }] }));
  const refused = `error: ${collision('user-alice', clientsFile, 'alice', usersFile)}\n`;

  const viaEnv = await clients(['add', '--file', clientsFile, '--id', 'user-alice'], { USERS_FILE: usersFile });
  t.same([viaEnv.code, viaEnv.stdout, viaEnv.stderr], [1, '', refused]);
  const viaFlag = await clients(['add', '--file', clientsFile, '--id', 'user-alice', '--users-file', usersFile]);
  t.same([viaFlag.code, viaFlag.stderr], [1, refused]);
  await t.rejects(readFile(clientsFile), { code: 'ENOENT' }, 'a refused client is not written');

  const codeFlow = await clients(
    ['add', '--file', clientsFile, '--id', 'user-alice', '--grant', 'authorization_code', '--redirect-uri', 'https://app.example.com/cb'],
    { USERS_FILE: usersFile },
  );
  t.equal(codeFlow.code, 0, codeFlow.stderr);
  const noUsersYet = await clients(['add', '--file', clientsFile, '--id', 'svc', '--users-file', join(dir, 'missing.json')]);
  t.equal(noUsersYet.code, 0, noUsersYet.stderr);
  t.same(
    (await load(clientsFile)).all().map((c) => c.clientId),
    ['user-alice', 'svc'],
  );
  t.same((await readdir(dir)).sort(), ['clients.json', 'users.json'], 'both locks released');
});

t.test('clients list', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'clients.json');
  await writeFile(
    file,
    JSON.stringify({
      clients: [
        { ...service('reports'), client_name: 'Reporting job', scope: 'read reports' },
        { ...webApp('web'), grant_types: ['authorization_code', 'refresh_token'], scope: '' },
        { ...service('rs'), introspect_all_tokens: true, token_endpoint_auth_method: 'client_secret_post' },
      ],
    }),
  );
  const run = await clients(['list'], { CLIENTS_FILE: file });
  t.same([run.code, run.stderr], [0, '']);
  t.equal(
    run.stdout,
    [
      'reports  auth=client_secret_basic  grants=client_credentials  scope="read reports"  name="Reporting job"',
      'web  auth=client_secret_basic  grants=authorization_code,refresh_token  scope=""  response_types=code  redirect_uris=https://app.example.com/cb',
      'rs  auth=client_secret_post  grants=client_credentials  scope=read  introspect_all_tokens',
      '',
    ].join('\n'),
  );
  t.notMatch(run.stdout, hashClientSecret('collision-test-secret').slice(7), 'never a secret hash');
  t.notMatch(run.stdout, 'sha256');

  const invalid = join(dir, 'invalid.json');
  await writeFile(
    invalid,
    JSON.stringify({ clients: [{ client_id: 'svc', client_secret_hash: 'sha256:nope', grant_types: ['client_credentials'] }] }),
  );
  const refused = await clients(['list', '--file', invalid]);
  t.same(
    [refused.code, refused.stdout, refused.stderr],
    [1, '', `error: ${invalid}: client "svc": client_secret_hash: must be the output of "oauth2-token-service secret hash"\n`],
  );
  const missing = await clients(['list', '--file', join(dir, 'none.json')]);
  t.same(
    [missing.code, missing.stdout, missing.stderr],
    [1, '', `error: ${join(dir, 'none.json')}: no such file\n`],
    'as the server, a missing file fails',
  );
});

t.test('clients remove <client_id>', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'clients.json');
  await writeFile(file, JSON.stringify({ clients: [service('a'), service('b')] }));
  const run = await clients(['remove', 'a'], { CLIENTS_FILE: file });
  t.same([run.code, run.stdout, run.stderr], [0, `removed client a from ${file}\n`, '']);
  t.same(
    (await load(file)).all().map((c) => c.clientId),
    ['b'],
  );
  const before = await readFile(file, 'utf8');
  const unknown = await clients(['remove', 'a', '--file', file]);
  t.same([unknown.code, unknown.stdout, unknown.stderr], [1, '', `error: no client "a" in ${file}\n`]);
  t.equal(await readFile(file, 'utf8'), before, 'nothing changed');
  const missing = await clients(['remove', '--file', file]);
  t.same([missing.code, missing.stderr.split('\n')[0]], [2, 'error: missing <client_id>']);
});

t.test('clients rotate-secret <client_id>', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'clients.json');
  const old = 'the-old-secret-0123456789abcdefghijklmnopqrstuvwxyz';
  await writeFile(
    file,
    JSON.stringify({
      clients: [
        { ...service('svc'), client_secret_hash: hashClientSecret(old) },
        { ...webApp('spa'), client_secret_hash: undefined, token_endpoint_auth_method: 'none' },
      ],
    }),
  );
  const run = await clients(['rotate-secret', 'svc', '--file', file]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, new RegExp(`^new secret for client svc in ${file}\\n`));
  const secret = SECRET_LINES.exec(run.stdout)?.[1] as string;
  t.ok(secret, run.stdout);
  const client = (await load(file)).get('svc');
  t.ok(verifyClientSecret(secret, client?.secretDigest), 'the new secret is stored as its digest');
  t.notOk(verifyClientSecret(old, client?.secretDigest), 'the old one no longer matches');
  t.notMatch(await readFile(file, 'utf8'), secret);
  t.same([...(client?.grantTypes ?? [])], ['client_credentials'], 'the rest of the client is kept');

  const before = await readFile(file, 'utf8');
  const publicClient = await clients(['rotate-secret', 'spa', '--file', file]);
  t.same(
    [publicClient.code, publicClient.stdout, publicClient.stderr],
    [1, '', 'error: client "spa" is a public client (token_endpoint_auth_method "none"): it has no secret\n'],
  );
  const unknown = await clients(['rotate-secret', 'nope', '--file', file]);
  t.same([unknown.code, unknown.stdout, unknown.stderr], [1, '', `error: no client "nope" in ${file}\n`]);
  t.equal(await readFile(file, 'utf8'), before, 'refusals change nothing');
});

t.test('clients add --auth-method private_key_jwt: the public keys from --jwks-file or at --jwks-uri, no secret', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'clients.json');
  const [es, ed] = await Promise.all([clientKey('ES256', 'k1'), clientKey('EdDSA', 'k2')]);
  const jwksFile = join(dir, 'jwks.json');
  await writeFile(jwksFile, JSON.stringify(jwksOf(es, ed)));
  const byFile = await clients(['add', '--file', file, '--id', 'job', '--auth-method', 'private_key_jwt', '--jwks-file', jwksFile]);
  t.same([byFile.code, byFile.stdout, byFile.stderr], [0, `added client job to ${file}\n`, ''], 'no secret printed');
  const byUri = await clients([
    ...['add', '--file', file, '--id', 'remote', '--auth-method', 'private_key_jwt'],
    ...['--jwks-uri', 'https://remote.example.com/jwks.json', '--signing-alg', 'ES256'],
  ]);
  t.same([byUri.code, byUri.stdout, byUri.stderr], [0, `added client remote to ${file}\n`, '']);
  const registry = await load(file);
  t.same(registry.get('job')?.keys, { jwks: jwksOf(es, ed) });
  t.same(
    [registry.get('remote')?.keys, registry.get('remote')?.assertionSigningAlg],
    [{ jwksUri: 'https://remote.example.com/jwks.json' }, 'ES256'],
  );
  t.equal(registry.get('job')?.secretDigest, undefined);

  const list = await clients(['list', '--file', file]);
  t.equal(
    list.stdout,
    [
      'job  auth=private_key_jwt  jwks=k1,k2  grants=client_credentials  scope=""',
      'remote  auth=private_key_jwt  jwks_uri=https://remote.example.com/jwks.json  signing_alg=ES256  grants=client_credentials  scope=""',
      '',
    ].join('\n'),
  );

  const before = await readFile(file, 'utf8');
  const privateFile = join(dir, 'private.json');
  await writeFile(privateFile, JSON.stringify({ keys: [es.privateJwk] }));
  const refusals: [string[], number, string][] = [
    [['--id', 'a', '--auth-method', 'private_key_jwt'], 1, `${file}: client "a": jwks: private_key_jwt needs the client's public keys`],
    [
      ['--id', 'b', '--auth-method', 'private_key_jwt', '--jwks-file', privateFile],
      1,
      `${file}: client "b": jwks: keys[0]: only public keys`,
    ],
    [
      ['--id', 'c', '--jwks-uri', 'https://c.example.com/jwks.json'],
      1,
      `${file}: client "c": jwks_uri: only with token_endpoint_auth_method "private_key_jwt"`,
    ],
    [
      ['--id', 'd', '--auth-method', 'private_key_jwt', '--jwks-file', join(dir, 'none.json')],
      1,
      `${join(dir, 'none.json')}: no such file`,
    ],
    [
      ['--id', 'e', '--auth-method', 'private_key_jwt', '--jwks-file', jwksFile, '--jwks-uri', 'https://e.example.com/jwks.json'],
      2,
      '--jwks-file and --jwks-uri: one or the other',
    ],
  ];
  for (const [args, code, message] of refusals) {
    const run = await clients(['add', '--file', file, ...args]);
    t.same([run.code, run.stdout], [code, ''], args.join(' '));
    t.match(run.stderr, `error: ${message}`);
  }
  t.equal(await readFile(file, 'utf8'), before, 'nothing stored');
  const rotate = await clients(['rotate-secret', 'job', '--file', file]);
  t.same(
    [rotate.code, rotate.stdout, rotate.stderr],
    [1, '', 'error: client "job" authenticates with its keys (private_key_jwt): it has no secret\n'],
  );
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { freePort } from '../../harness/ports.js';
import { CLI, runNode, startServerProcess } from '../../harness/process.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';

/**
 * The built `oauth2-token-service` as a process against a running server process, through
 * the admin API (`--url`): a client and a user added, listed and removed, a grant revoked,
 * a file client refused (409), a bad token (401) and a read-only token (403). Needs every
 * route of the admin API (clients and users included): exact stdout, stderr and exit codes.
 */

const SECRET = 'cli-remote-secret-0123456789abcdefghijklmnopqrstuv';

t.test('the operator command against a running fleet, through its admin API', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const client = (client_id: string, grant_types: string[], scope: string) => ({
    client_id,
    client_secret_hash: hashClientSecret(SECRET),
    grant_types,
    scope,
  });
  await writeFile(
    clientsFile,
    JSON.stringify({
      clients: [
        client('operator', ['client_credentials'], 'admin:read admin:write'),
        client('auditor', ['client_credentials'], 'admin:read'),
        client('owner', ['password', 'refresh_token'], 'read'),
      ],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await startServerProcess(t, { PORT: String(port), ISSUER: url, KEYS_DIR: await keysDirWithSigningKey(t), CLIENTS_FILE: clientsFile });

  const token = async (clientId: string, params: Record<string, string>) =>
    fetch(`${url}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${params.secret ?? SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(Object.entries(params).filter(([name]) => name !== 'secret')).toString(),
    });
  const adminToken = async (clientId: string) => {
    const res = await token(clientId, { grant_type: 'client_credentials', resource: `${url}/admin/v1` });
    t.equal(res.status, 200, `an admin token for ${clientId}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const writer = await adminToken('operator');
  const reader = await adminToken('auditor');
  const tokenFile = join(dir, 'admin-token');
  await writeFile(tokenFile, `${writer}\n`, { mode: 0o600 });
  const cli = (args: string[], input?: string, bearer = writer) => runNode(CLI, args, { ADMIN_URL: url, ADMIN_TOKEN: bearer }, input);
  const outcome = (run: { code: number | null; stdout: string; stderr: string }) => [run.code, run.stdout, run.stderr];

  t.test('clients add, list, remove: the new client works at once, and stops at once', async (t) => {
    const added = await runNode(CLI, ['clients', 'add', '--id', 'reports', '--scope', 'read', '--url', url, '--token-file', tokenFile]);
    t.same([added.code, added.stderr], [0, '']);
    const secret =
      /^added client reports to http:\/\/127\.0\.0\.1:\d+\nclient_secret: (\S+)\n\(shown once: only its hash is stored\)\n$/.exec(
        added.stdout,
      )?.[1];
    t.ok(secret, added.stdout);
    t.equal((await token('reports', { grant_type: 'client_credentials', secret: secret ?? '' })).status, 200, 'the fleet serves it');

    t.same(outcome(await cli(['clients', 'list'])), [
      0,
      [
        'operator  auth=client_secret_basic  grants=client_credentials  scope="admin:read admin:write"  source=file',
        'auditor  auth=client_secret_basic  grants=client_credentials  scope=admin:read  source=file',
        'owner  auth=client_secret_basic  grants=password,refresh_token  scope=read  source=file',
        'reports  auth=client_secret_basic  grants=client_credentials  scope=read  source=admin',
        '',
      ].join('\n'),
      '',
    ]);
    t.same(outcome(await cli(['clients', 'list', '--source', 'admin'])), [
      0,
      'reports  auth=client_secret_basic  grants=client_credentials  scope=read  source=admin\n',
      '',
    ]);

    t.same(outcome(await cli(['clients', 'remove', 'reports'])), [0, `removed client reports from ${url}\n`, '']);
    t.equal((await token('reports', { grant_type: 'client_credentials', secret: secret ?? '' })).status, 401, 'refused at once');
    t.same(outcome(await cli(['clients', 'remove', 'reports'])), [
      1,
      '',
      `error: the admin API answered 404 not-found: client "reports" does not exist\n`,
    ]);
  });

  t.test('a client of CLIENTS_FILE is read-only through the API: 409, exit 1, the file unchanged', async (t) => {
    t.same(outcome(await cli(['clients', 'remove', 'owner'])), [
      1,
      '',
      `error: the admin API answered 409 conflict-file-entry: client "owner" is declared in ${clientsFile}: change it there\n`,
    ]);
  });

  t.test('users add, list; a grant listed and revoked; the user disabled, then removed', async (t) => {
    t.same(outcome(await cli(['users', 'add', '--username', 'carol'], 'carol-password-1\n')), [0, `added user carol to ${url}\n`, '']);
    t.same(outcome(await cli(['users', 'list'])), [0, 'carol  sub=carol  source=admin\n', '']);

    const signIn = () => token('owner', { grant_type: 'password', username: 'carol', password: 'carol-password-1' });
    const signedIn = await signIn();
    t.equal(signedIn.status, 200, 'carol signs in on the fleet');
    const { access_token: access, refresh_token: refresh } = (await signedIn.json()) as { access_token?: string; refresh_token: string };
    if (access === undefined) throw new Error('carol did not sign in: the rest of this test needs her grant');
    const grantId = (JSON.parse(Buffer.from(access.split('.')[1] as string, 'base64url').toString()) as { grant_id: string }).grant_id;

    const listed = await cli(['grants', 'list', '--sub', 'carol']);
    t.same([listed.code, listed.stderr], [0, '']);
    t.match(
      listed.stdout,
      new RegExp(`^grant=${grantId} sub=carol client=owner expires=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.000Z\\n$`),
    );
    t.same(outcome(await cli(['grants', 'revoke', grantId])), [0, `revoked grant=${grantId}\n`, '']);
    const refreshed = await token('owner', { grant_type: 'refresh_token', refresh_token: refresh });
    t.same([refreshed.status, ((await refreshed.json()) as { error: string }).error], [400, 'invalid_grant'], 'its refresh token is dead');
    t.same(outcome(await cli(['grants', 'list', '--sub', 'carol'])), [0, '', '']);

    t.same(outcome(await cli(['users', 'disable', 'carol'])), [0, `disabled user carol at ${url}\n`, '']);
    t.same(outcome(await cli(['users', 'list'])), [0, 'carol  sub=carol  disabled  source=admin\n', '']);
    t.equal((await signIn()).status, 400, 'a disabled user cannot sign in');
    t.same(outcome(await cli(['users', 'remove', 'carol'])), [0, `removed user carol from ${url}\n`, '']);
    t.same(outcome(await cli(['users', 'list'])), [0, '', '']);
  });

  t.test('a token the admin API does not take: 401; a read-only token changes nothing: 403', async (t) => {
    t.same(outcome(await cli(['clients', 'list'], undefined, 'not-a-jwt')), [
      1,
      '',
      'error: the admin API answered 401 unauthorized: the access token is malformed\n',
    ]);
    t.same(outcome(await cli(['clients', 'list'], undefined, reader)), [
      0,
      [
        'operator  auth=client_secret_basic  grants=client_credentials  scope="admin:read admin:write"  source=file',
        'auditor  auth=client_secret_basic  grants=client_credentials  scope=admin:read  source=file',
        'owner  auth=client_secret_basic  grants=password,refresh_token  scope=read  source=file',
        '',
      ].join('\n'),
      '',
    ]);
    t.same(outcome(await cli(['clients', 'add', '--id', 'sneaky'], undefined, reader)), [
      1,
      '',
      'error: the admin API answered 403 insufficient-scope: this request needs the scope admin:write\n',
    ]);
    t.same(outcome(await cli(['users', 'add', '--username', 'dave'], 'dave-password-1\n', reader)), [
      1,
      '',
      'error: the admin API answered 403 insufficient-scope: this request needs the scope admin:write\n',
    ]);
  });
});

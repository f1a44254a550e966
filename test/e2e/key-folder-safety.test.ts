import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { keyFileName, readKeyFolder } from '../../src/keys/key-file.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { freePort } from '../../harness/ports.js';
import { runNode, startServerProcess } from '../../harness/process.js';

const jwksKids = async (baseUrl: string) =>
  ((await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('the server refuses a keys folder that group or others can write', async (t) => {
  const keysDir = await keysDirWithSigningKey(t);
  await chmod(keysDir, 0o775);
  const run = await runNode('src/main.js', [], { KEYS_DIR: keysDir, PORT: String(await freePort()) });
  t.equal(run.code, 1);
  t.equal(
    run.stderr,
    `KEYS_DIR: keys folder ${keysDir} is writable by group or others (mode 0775), so anyone there can plant a signing key: fix it with "chmod go-w ${keysDir}"\n`,
  );
});

t.test('the server warns about a key file others can read, and keeps its keys when the folder turns unsafe', async (t) => {
  const keysDir = await keysDirWithSigningKey(t);
  const [record] = await readKeyFolder(keysDir);
  const file = join(keysDir, keyFileName(record?.kid as string));
  await chmod(file, 0o644);
  const server = await startServerProcess(t, { PORT: String(await freePort()), KEYS_DIR: keysDir, KEYS_RELOAD_INTERVAL: '0' });
  const warning = `key file ${file} is readable by others (mode 0644): fix it with "chmod o-r ${file}" (a Kubernetes secret volume: defaultMode: 0400)`;
  const logged = () =>
    server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  // The log line may reach the pipe a moment after the server answers.
  await eventually(() => logged().some((l) => l.msg === warning), 'the warning at start');
  t.match(
    logged().filter((l) => l.msg === warning),
    [{ level: 40, keysDir }],
    'warned once at start',
  );

  await chmod(keysDir, 0o777);
  server.child.kill('SIGHUP');
  await eventually(() => server.output().includes('signing keys reload failed'), 'the reload failure');
  t.match(
    logged().find((l) => l.msg === 'signing keys reload failed; keeping the previous keys'),
    {
      level: 50,
      reason: 'SIGHUP',
      err: {
        message: `keys folder ${keysDir} is writable by group or others (mode 0777), so anyone there can plant a signing key: fix it with "chmod go-w ${keysDir}"`,
      },
    },
  );
  t.same(await jwksKids(server.baseUrl), [record?.kid], 'the previous keys stay in use');
  t.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);

  await chmod(keysDir, 0o700);
  server.child.kill('SIGHUP');
  await eventually(() => server.output().includes('signing keys reloaded'), 'the next reload');
  t.equal(logged().filter((l) => l.msg === warning).length, 1, 'an unchanged warning is not repeated on every reload');
});

import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../../harness/ports.js';
import { REPOSITORY, startServerProcess, untilPrinted } from '../../harness/process.js';
import { tempDir } from '../helpers/keys.js';

/**
 * `npm run dev` twice in one folder (on two ports): each writes its demo credentials to a
 * file named by its port, so neither overwrites the other's, and each file holds the
 * secret that server printed and accepts.
 */
t.test('two dev servers in one folder keep their demo credentials apart', async (t) => {
  const dir = await tempDir(t, 'oauth-dev-');
  await symlink(join(REPOSITORY, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const servers = [];
  for (const port of [await freePort(), await freePort()]) {
    const server = await startServerProcess(
      t,
      { PORT: String(port), LOG_LEVEL: 'warn' },
      { command: [process.execPath, join(REPOSITORY, 'dist', 'src', 'dev.js')], cwd: dir, readyPath: '/readyz' },
    );
    const file = `.dev/demo-${port}.env`;
    t.ok(
      await untilPrinted(server, (output) => output.includes(`Demo credentials also in ${file}`)),
      `the server on ${port} names ${file}`,
    );
    servers.push({ server, port, file });
  }
  for (const { server, port, file } of servers) {
    const printed = /client_secret: (\S+)/.exec(server.output())?.[1];
    const written = /^SECRET=(\S+)$/m.exec(await readFile(join(dir, file), 'utf8'))?.[1];
    t.ok(printed, 'a secret printed');
    t.equal(written, printed, `${file} holds the secret the server on ${port} printed`);
    const res = await fetch(`${server.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`demo-client:${written}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials&scope=read',
    });
    t.equal(res.status, 200, `the server on ${port} accepts it`);
  }
  t.not(servers[0]?.file, servers[1]?.file);
});

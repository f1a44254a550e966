import { once } from 'node:events';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { freePort } from '../../harness/ports.js';
import { REPOSITORY, runProgram, type ServerProcess, startServerProcess } from '../../harness/process.js';
import { installPackedTarball } from '../helpers/packed-install.js';
import { fencedBlocks } from '../helpers/readme.js';
import { logEntries, readyLogged } from '../helpers/server-log.js';

/**
 * Signals reach the server when it runs as docs/operations.md ("Supervising the process") says:
 * the packed tarball installed with --omit=dev, started by the systemd unit's ExecStart (the
 * installed binary itself) and by the documented shell wrapper (which `exec`s it). For each,
 * the process the supervisor holds is the server (its log lines carry that pid); SIGHUP (the
 * unit's ExecReload, run as written) reloads CLIENTS_FILE, and SIGTERM stops it with exit
 * code 0 within SHUTDOWN_TIMEOUT, leaving no process behind. Installed, the server runs in
 * production without NODE_ENV (ISSUER required).
 */

t.setTimeout(240_000);

/** Where the docs install the package; the test's own folder stands in for it. */
const DOCUMENTED_HOME = '/srv/oauth';
const SHUTDOWN_TIMEOUT = 2;

const operations = await readFile(join(REPOSITORY, 'docs', 'operations.md'), 'utf8');
const blocks = fencedBlocks(operations);

/** The [Service] settings of the documented unit of the server (the ini block with `serve`). */
function documentedUnit(): Map<string, string> {
  const unit = blocks.find((b) => b.info === 'ini' && b.body.some((line) => /^ExecStart=.* serve$/.test(line)));
  const settings = (unit?.body ?? []).filter((line) => /^[A-Za-z]+=/.test(line)).map((line) => line.split(/=(.*)/s) as [string, string]);
  return new Map(settings.map(([name, value]) => [name, value]));
}

/** The documented wrapper script (the text block starting with #!/bin/sh), its paths moved to `home`. */
function documentedWrapper(home: string): string {
  const wrapper = blocks.find((b) => b.info === 'text' && b.body[0] === '#!/bin/sh');
  return `${(wrapper?.body ?? []).join('\n').replaceAll(DOCUMENTED_HOME, home)}\n`;
}

/** The installed package with a signing key and one client, and the installed command run in it. */
interface Installation {
  readonly app: string;
  readonly bin: string;
  readonly clientsFile: string;
  /** The server's settings on `port` (what EnvironmentFile or the wrapper's file holds). */
  settings(port: number): Record<string, string>;
  /** Adds a client_credentials client with the installed command; its secret. */
  addClient(t: Test, id: string): Promise<string>;
}

async function install(t: Test): Promise<Installation> {
  const { app, bin } = await installPackedTarball(t);
  const keysDir = join(app, 'keys');
  const clientsFile = join(app, 'clients.json');
  const rotated = await runProgram(bin, ['keys', 'rotate', '--dir', keysDir], app);
  t.same([rotated.code, rotated.stderr], [0, ''], 'keys rotate');
  const installation: Installation = {
    app,
    bin,
    clientsFile,
    settings: (port) => ({
      ISSUER: `http://127.0.0.1:${port}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      KEYS_DIR: keysDir,
      CLIENTS_FILE: clientsFile,
      KEYS_RELOAD_INTERVAL: '0',
      SHUTDOWN_TIMEOUT: String(SHUTDOWN_TIMEOUT),
    }),
    async addClient(t, id) {
      const added = await runProgram(bin, ['clients', 'add', '--id', id, '--scope', 'read', '--file', clientsFile], app);
      t.same([added.code, added.stderr], [0, ''], `clients add --id ${id}`);
      return /client_secret: (\S+)/.exec(added.stdout)?.[1] as string;
    },
  };
  await installation.addClient(t, 'reports');
  return installation;
}

async function token(server: ServerProcess, id: string, secret: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials&scope=read',
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Waits until the server logged `msg`. */
async function logged(server: ServerProcess, msg: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!logEntries(server.output()).some((entry) => entry.msg === msg)) {
    if (Date.now() > deadline) throw new Error(`no "${msg}" logged:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The server started by a supervisor's command: it is the process the supervisor holds,
 * a client added while it runs gets a token only after `hangUp`, and SIGTERM stops it.
 */
async function assertSignalsReachServer(
  t: Test,
  installation: Installation,
  server: ServerProcess,
  hangUp: (pid: number) => Promise<void>,
): Promise<void> {
  const pid = server.child.pid as number;
  // Should the signals miss the server, it would outlive what was signalled: its process group goes at the end.
  t.teardown(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // the group is empty, as it should be
    }
  });
  t.match(await readyLogged(server), { pid, listen: `127.0.0.1:${new URL(server.baseUrl).port}` }, 'the supervised pid is the server');

  const id = `late-${pid}`;
  const secret = await installation.addClient(t, id);
  t.same(
    await token(server, id, secret),
    { status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } },
    'a client added while it runs: unknown until the reload',
  );
  await hangUp(pid);
  await logged(server, 'clients reloaded');
  t.match(
    logEntries(server.output()).find((entry) => entry.msg === 'clients reloaded'),
    { pid, reason: 'SIGHUP', file: installation.clientsFile },
    'the server itself reloaded',
  );
  const issued = await token(server, id, secret);
  t.match(issued, { status: 200, body: { token_type: 'bearer', scope: 'read', expires_in: 3600 } }, 'after SIGHUP: a token');

  const exited = once(server.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const sent = Date.now();
  process.kill(pid, 'SIGTERM');
  const [code, signal] = await exited;
  const took = Date.now() - sent;
  t.same([code, signal], [0, null], 'SIGTERM: a graceful stop, exit code 0');
  t.ok(took < SHUTDOWN_TIMEOUT * 1000, `within SHUTDOWN_TIMEOUT (${took} ms)`);
  t.match(
    logEntries(server.output()).find((entry) => entry.msg === 'shutting down'),
    { pid, signal: 'SIGTERM' },
  );
  // Nothing of its process group is left: no npm, no shell, no orphaned server.
  t.throws(() => process.kill(-pid, 0), { code: 'ESRCH' }, 'no process left behind');
}

t.test('the packed tarball, installed, run as docs/operations.md says', async (t) => {
  const installation = await install(t);
  const { app, bin, settings } = installation;

  await t.test('systemd: the unit runs the installed binary; ExecReload reloads it, SIGTERM stops it', async (t) => {
    const unit = documentedUnit();
    t.match(Object.fromEntries(unit), {
      ExecStart: `${DOCUMENTED_HOME}/node_modules/.bin/oauth2-token-service serve`,
      ExecReload: '/bin/kill -HUP $MAINPID',
      WorkingDirectory: DOCUMENTED_HOME,
      EnvironmentFile: /^\//,
      User: 'oauth',
      Restart: 'on-failure',
      KillMode: 'mixed',
      NoNewPrivileges: 'true',
      ProtectSystem: 'strict',
    });
    const [file, ...args] = (unit.get('ExecStart') as string).replaceAll(DOCUMENTED_HOME, app).split(' ') as [string, ...string[]];
    const port = await freePort();
    // EnvironmentFile's variables, as systemd hands them to ExecStart.
    const server = await startServerProcess(t, settings(port), { command: [file, ...args], cwd: app, readyPath: '/readyz' });
    await assertSignalsReachServer(t, installation, server, async (pid) => {
      const [kill, ...reload] = (unit.get('ExecReload') as string).replace('$MAINPID', String(pid)).split(' ') as [string, ...string[]];
      const run = await runProgram(kill, reload, app);
      t.same([run.code, run.stderr], [0, ''], 'ExecReload, as written');
    });
  });

  await t.test('the shell wrapper: exec makes the shell the server; SIGHUP reloads, SIGTERM stops', async (t) => {
    const script = documentedWrapper(app);
    t.match(script, /^exec \S+\/node_modules\/\.bin\/oauth2-token-service serve$/m, 'it execs the installed binary');
    const port = await freePort();
    const env = settings(port);
    await writeFile(
      join(app, 'oauth.env'),
      Object.entries(env)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
      { mode: 0o600 },
    );
    await writeFile(join(app, 'run.sh'), script);
    await chmod(join(app, 'run.sh'), 0o755);
    // The settings come from oauth.env; PORT here only tells the harness where to wait.
    const server = await startServerProcess(t, { PORT: String(port) }, { command: [join(app, 'run.sh')], cwd: app, readyPath: '/readyz' });
    await assertSignalsReachServer(t, installation, server, async (pid) => void process.kill(pid, 'SIGHUP'));
  });

  await t.test('installed, the server is in production without NODE_ENV: no ISSUER, no start', async (t) => {
    const withoutIssuer = Object.entries(settings(await freePort())).filter(([name]) => name !== 'ISSUER');
    const run = await runProgram(bin, ['serve'], app, Object.fromEntries(withoutIssuer));
    t.same(
      [run.code, run.stderr],
      [
        1,
        'ISSUER is not set: set it to the public https URL of this server (ISSUER=https://auth.example.com), the iss of every token and the base of every endpoint URL\n',
      ],
    );
  });
});

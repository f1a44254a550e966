import t from 'tap';
import { loadConfig } from '../../src/config/index.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { type StartOptions, startServer } from '../../src/server.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { capturedLogger } from '../helpers/logs.js';
import { writeRegistryFiles } from '../helpers/registry-files.js';
import { TEST_CLIENTS } from '../helpers/server.js';

/**
 * src/server.ts: an algorithm the server needs that no key signs with is one warn line, at
 * start and after every reload of the keys (here on SIGHUP); /readyz says it too
 * (test/unit/health.test.ts).
 */

const RS256_MISSING =
  'no RS256 key signs now: ID tokens that need RS256 cannot be signed (never with another algorithm); run "oauth2-token-service keys rotate --alg RS256"';

t.test('a needed algorithm without a signer: one warn line at start and after each reload, none once a key of it signs', async (t) => {
  const keysDir = await keysDirWithSigningKey(t); // ES256 alone: access tokens sign, ID tokens (RS256) do not
  const { clientsFile, usersFile } = await writeRegistryFiles(t, TEST_CLIENTS);
  const config = loadConfig({
    KEYS_DIR: keysDir,
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    HOST: '127.0.0.1',
    PORT: '0',
    KEYS_RELOAD_INTERVAL: '0',
  });
  const logs = capturedLogger('info');
  const server = await startServer(config, { logger: logs.logger as StartOptions['logger'] });
  t.teardown(() => server.stop());
  const lines = () => logs.lines().map((line) => JSON.parse(line) as { level: number; msg: string; alg?: string; keysDir?: string });
  const count = (msg: string) => lines().filter((line) => line.msg === msg).length;
  /** Sends SIGHUP and waits until both the keys and the clients have reloaded (the check runs right after both). */
  const hangup = async (reloads: number) => {
    process.kill(process.pid, 'SIGHUP');
    for (let waited = 0; count('signing keys reloaded') < reloads || count('clients reloaded') < reloads; waited += 20) {
      if (waited > 5000) throw new Error('no reload within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const warnings = () => lines().filter((line) => line.level === 40 && line.alg !== undefined);
  t.equal(warnings().length, 1, 'one line at start');
  t.match(warnings()[0], { level: 40, alg: 'RS256', keysDir, msg: RS256_MISSING }, 'naming RS256 and the command');
  await hangup(1);
  t.same(
    warnings().map((line) => line.alg),
    ['RS256', 'RS256'],
    'again after the reload',
  );
  await rotateKeys(keysDir, { alg: 'RS256', delay: 0, accessTokenTtl: 3600 });
  await hangup(2);
  t.equal(warnings().length, 2, 'no line once an RS256 key signs');
  t.equal(count(RS256_MISSING), 2);
});

import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { demoCredentialsFile, writeDemoCredentials } from '../../src/dev-credentials.js';
import { tempDir } from '../helpers/keys.js';

const mode = async (path: string) => (await stat(path)).mode & 0o777;

t.test('npm run dev writes the demo secret and password as shell lines, readable by its owner only', async (t) => {
  const file = join(await tempDir(t), '.dev', 'demo.env');
  await writeDemoCredentials(file, { SECRET: 'Abc_-123', PASSWORD: 'pw-456' });
  const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => !line.startsWith('#'));
  t.same(lines, ['SECRET=Abc_-123', 'PASSWORD=pw-456', '']);
  t.equal(await mode(file), 0o600);
  t.equal(await mode(join(file, '..')), 0o700);
});

t.test('only what dev generated: with CLIENTS_FILE there is no SECRET line', async (t) => {
  const file = join(await tempDir(t), 'demo.env');
  await writeDemoCredentials(file, { SECRET: undefined, PASSWORD: 'pw-456' });
  t.notMatch(await readFile(file, 'utf8'), /SECRET=/);
  t.match(await readFile(file, 'utf8'), /^PASSWORD=pw-456$/m);
});

t.test('with neither, a file left by an earlier run is removed (its values would be stale)', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'demo.env');
  await writeFile(file, 'SECRET=old\n');
  await writeDemoCredentials(file, {});
  await t.rejects(stat(file), { code: 'ENOENT' });
  await writeDemoCredentials(join(dir, 'never', 'demo.env'), {});
  await t.rejects(stat(join(dir, 'never')), { code: 'ENOENT' }, 'nothing created');
});

t.test('a value a shell would interpret is refused, and nothing is written', async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, '.dev'));
  const file = join(dir, '.dev', 'demo.env');
  await t.rejects(writeDemoCredentials(file, { PASSWORD: 'x$(reboot)' }), { message: 'PASSWORD is not shell-safe' });
  await t.rejects(stat(file), { code: 'ENOENT' });
});

t.test('named by the port: .dev/demo.env on 3000 (the README), .dev/demo-<port>.env on any other', async (t) => {
  t.equal(demoCredentialsFile(3000), '.dev/demo.env');
  t.equal(demoCredentialsFile(3001), '.dev/demo-3001.env');
  t.equal(demoCredentialsFile(41234), '.dev/demo-41234.env');
});

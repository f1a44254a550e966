import { chmod, mkdir, rename, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { checkKeyFolder } from '../../src/keys/folder-safety.js';
import { keyFileName, readKeyFolder } from '../../src/keys/key-file.js';
import { Keystore } from '../../src/keys/keystore.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';

const now = () => Math.floor(Date.now() / 1000);

async function oneKey(t: Parameters<typeof keysDirWithSigningKey>[0]) {
  const dir = await keysDirWithSigningKey(t);
  const [record] = await readKeyFolder(dir);
  return { dir, file: join(dir, keyFileName(record?.kid as string)) };
}

/** The layout of a Kubernetes secret volume: `<kid>.json` → `..data/<kid>.json`, `..data` → `..2024_01_01_00_00_00.1`. */
async function secretVolume(t: Parameters<typeof keysDirWithSigningKey>[0]) {
  const { dir, file } = await oneKey(t);
  const name = file.slice(dir.length + 1);
  const version = join(dir, '..2024_01_01_00_00_00.1');
  await mkdir(version, { mode: 0o755 });
  await rename(file, join(version, name));
  await symlink('..2024_01_01_00_00_00.1', join(dir, '..data'));
  await symlink(join('..data', name), file);
  return { dir, link: file, target: join(version, name), version };
}

t.test('checkKeyFolder', async (t) => {
  t.test('a 0700 folder of 0600 files is fine', async (t) => {
    const { dir } = await oneKey(t);
    t.same(await checkKeyFolder(dir), []);
  });

  t.test('refuses a folder that group or others can write, naming it and the chmod that fixes it', async (t) => {
    const { dir } = await oneKey(t);
    for (const mode of [0o770, 0o707, 0o1777]) {
      await chmod(dir, mode);
      const shown = mode.toString(8).padStart(4, '0');
      await t.rejects(checkKeyFolder(dir), {
        name: 'KeyFolderError',
        message: `keys folder ${dir} is writable by group or others (mode ${shown}), so anyone there can plant a signing key: fix it with "chmod go-w ${dir}"`,
      });
    }
  });

  t.test('refuses a key file that group or others can write; every problem gets its own line', async (t) => {
    const { dir, file } = await oneKey(t);
    await chmod(file, 0o620);
    await t.rejects(checkKeyFolder(dir), {
      message: `key file ${file} is writable by group or others (mode 0620): fix it with "chmod go-w ${file}"`,
    });
    await chmod(dir, 0o777);
    await t.rejects(checkKeyFolder(dir), {
      message:
        `keys folder ${dir} is writable by group or others (mode 0777), so anyone there can plant a signing key: fix it with "chmod go-w ${dir}"\n` +
        `key file ${file} is writable by group or others (mode 0620): fix it with "chmod go-w ${file}"`,
    });
  });

  t.test('warns about a key file others can read, not one only its group can read', async (t) => {
    const { dir, file } = await oneKey(t);
    await chmod(file, 0o644);
    t.same(await checkKeyFolder(dir), [
      `key file ${file} is readable by others (mode 0644): fix it with "chmod o-r ${file}" (a Kubernetes secret volume: defaultMode: 0400)`,
    ]);
    await chmod(file, 0o440);
    t.same(await checkKeyFolder(dir), [], 'group-readable: what Kubernetes makes of defaultMode 0400 with fsGroup');
  });

  t.test('judges a symlinked key file (a Kubernetes secret volume) by its target and the folder holding it', async (t) => {
    const { dir, link, target, version } = await secretVolume(t);
    t.same(await checkKeyFolder(dir), [], 'defaultMode 0400-style files behind links are fine');
    await chmod(target, 0o644);
    t.same(await checkKeyFolder(dir), [
      `key file ${link} (a link to ${target}) is readable by others (mode 0644): fix it with "chmod o-r ${target}" (a Kubernetes secret volume: defaultMode: 0400)`,
    ]);
    await chmod(target, 0o666);
    await t.rejects(checkKeyFolder(dir), {
      message: `key file ${link} (a link to ${target}) is writable by group or others (mode 0666): fix it with "chmod go-w ${target}"`,
    });
    await chmod(target, 0o600);
    await chmod(version, 0o777);
    await t.rejects(checkKeyFolder(dir), {
      message: `folder ${version} (holding the target of ${link}) is writable by group or others (mode 0777), so anyone there can plant a signing key: fix it with "chmod go-w ${version}"`,
    });
  });

  t.test('write bits on a read-only file system do not count (a secret volume is a read-only 1777 tmpfs)', async (t) => {
    const { dir, file } = await oneKey(t);
    await chmod(dir, 0o1777);
    await chmod(file, 0o660);
    const probed: string[] = [];
    const onReadOnlyFileSystem = async (path: string) => {
      probed.push(path);
      return true;
    };
    t.same(await checkKeyFolder(dir, { onReadOnlyFileSystem }), []);
    t.same(probed.sort(), [dir, file].sort(), 'only paths with write bits are probed');
    await t.rejects(checkKeyFolder(dir, { onReadOnlyFileSystem: async () => false }), {
      message: /^keys folder .* is writable by group or others \(mode 1777\)/,
    });
  });

  t.test('a dangling link fails like an unreadable key file', async (t) => {
    const { dir } = await oneKey(t);
    await symlink(join(dir, 'gone.json'), join(dir, 'dangling.json'));
    await t.rejects(checkKeyFolder(dir), { message: 'key file dangling.json: ENOENT' });
  });
});

t.test('Keystore and unsafe folders', async (t) => {
  t.test('refuses to open a world-writable folder', async (t) => {
    const { dir } = await oneKey(t);
    await chmod(dir, 0o777);
    await t.rejects(Keystore.open(dir, now()), { message: /^keys folder .* is writable by group or others \(mode 0777\).*"chmod go-w / });
  });

  t.test('a reload of a folder turned unsafe keeps the previous keys and returns why', async (t) => {
    const { dir } = await oneKey(t);
    const keystore = await Keystore.open(dir, now());
    const before = keystore.signingKeyAt(now())?.kid;
    await rotateKeys(dir, { alg: 'ES256', delay: 0, accessTokenTtl: 60 });
    await chmod(dir, 0o775);
    const failed = await keystore.reload();
    t.equal(failed.ok, false);
    t.match(!failed.ok && failed.error.message, `keys folder ${dir} is writable by group or others (mode 0775)`);
    t.equal(keystore.signingKeyAt(now())?.kid, before, 'the planted (here: new) key is not used');
    await chmod(dir, 0o700);
    t.equal((await keystore.reload()).ok, true);
    t.not(keystore.signingKeyAt(now())?.kid, before);
  });

  t.test('returns the warnings on open and on reload, for the server to log', async (t) => {
    const { dir, file } = await oneKey(t);
    const keystore = await Keystore.open(dir, now());
    t.same(keystore.warnings, []);
    await chmod(file, 0o604);
    const warning = `key file ${file} is readable by others (mode 0604): fix it with "chmod o-r ${file}" (a Kubernetes secret volume: defaultMode: 0400)`;
    t.same(await keystore.reload(), { ok: true, count: 1, warnings: [warning] });
    t.same(keystore.warnings, [warning]);
    t.same((await Keystore.open(dir, now())).warnings, [warning]);
  });

  t.test('the rotation refuses to write into an unsafe folder and leaves it as it was', async (t) => {
    const { dir } = await oneKey(t);
    await chmod(dir, 0o777);
    await t.rejects(rotateKeys(dir, { delay: 0, accessTokenTtl: 60 }), { message: /^keys folder .* is writable by group or others/ });
    await chmod(dir, 0o700);
    t.equal((await readKeyFolder(dir)).length, 1);
  });
});

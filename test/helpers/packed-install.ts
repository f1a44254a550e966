import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import { REPOSITORY, runProgram } from '../../harness/process.js';
import { tempDir } from './keys.js';

/** npm without its noise, and from its cache where it can (the registry otherwise). */
export const NPM_QUIET = ['--prefer-offline', '--no-audit', '--no-fund'];

export interface PackedInstall {
  /** The operator's folder: `node_modules/oauth2-token-service` and `node_modules/.bin` in it. */
  readonly app: string;
  /** The tarball's file name (`oauth2-token-service-<version>.tgz`). */
  readonly filename: string;
  /** What the tarball holds (`npm pack --json`). */
  readonly files: readonly string[];
  /** The installed command, as the docs run it: `<app>/node_modules/.bin/oauth2-token-service`. */
  readonly bin: string;
}

/**
 * `npm pack` of this repository (its built dist/), then `npm install --omit=dev <tgz>` in an
 * empty folder: what an operator has after the production quick start's first command.
 */
export async function installPackedTarball(t: Test): Promise<PackedInstall> {
  const dir = await tempDir(t, 'oauth-tarball-');
  const pack = await runProgram('npm', ['pack', '--json', '--pack-destination', dir], REPOSITORY);
  t.equal(pack.code, 0, pack.stderr);
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'operator', private: true }));
  const started = Date.now();
  const install = await runProgram('npm', ['install', '--omit=dev', join(dir, packed?.filename as string), ...NPM_QUIET], app);
  t.equal(install.code, 0, install.stderr);
  t.notMatch(install.stderr, /EBADENGINE/, 'no engine warning');
  t.comment(`npm install --omit=dev of the tarball took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return {
    app,
    filename: packed?.filename ?? '',
    files: packed?.files.map((f) => f.path) ?? [],
    bin: join(app, 'node_modules', '.bin', 'oauth2-token-service'),
  };
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The package this command runs from: the nearest folder above this module with a
 * package.json. That is the package's root whether the module runs from an installed
 * package (node_modules/oauth2-token-service/dist/src/cli/), a checkout or the image
 * (dist/src/cli/), or the tests (src/cli/, .tests/src/cli/): none of these folders has a
 * package.json of its own. Read when asked, so it names the files on this disk.
 */
export interface PackageInfo {
  /** The package's folder: README.md, docs/, CHANGELOG.md and LICENSE are in it. */
  readonly root: string;
  readonly version: string;
}

export function packageInfo(from: string = import.meta.dirname): PackageInfo {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
      if (typeof version !== 'string') throw new Error(`${file} has no version`);
      return { root: dir, version };
    }
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

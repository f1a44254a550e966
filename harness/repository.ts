import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The repository's root: the nearest folder above this file with a package.json. The
 * harness runs from harness/ (TypeScript), .tests/harness/ (the compiled tests) and
 * dist/harness/ (the built bench); neither .tests nor dist has a package.json.
 */
function repositoryRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const REPOSITORY = repositoryRoot(import.meta.dirname);

// npm start: the built server, never a build (production installs have no compiler).
// Without dist/, one line says what to do instead of Node's module-not-found stack.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { exit, stderr } from 'node:process';

const main = join(import.meta.dirname, '..', 'dist', 'src', 'main.js');
if (!existsSync(main)) {
  stderr.write('dist/ is missing: build first (npm ci && npm run build && npm prune --omit=dev), then npm start\n');
  exit(1);
}
await import(main);

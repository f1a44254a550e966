import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Where `npm run dev` leaves the demo client's secret and the demo user's password, relative
 * to its working directory (git- and docker-ignored), so a second shell loads them with
 * `. .dev/demo.env` instead of copying them from the terminal. Development only: the demo
 * client and user live in memory and get new credentials at every start.
 */
export const DEMO_CREDENTIALS_FILE = '.dev/demo.env';

/** The port the README's lines assume (PORT's default). */
const DEFAULT_PORT = 3000;

/**
 * The file of the dev server on `port`: `.dev/demo.env` on the default port, `.dev/demo-<port>.env`
 * on any other, so two dev servers in one folder (they need two ports) never overwrite each
 * other's credentials.
 */
export function demoCredentialsFile(port: number): string {
  return port === DEFAULT_PORT ? DEMO_CREDENTIALS_FILE : `.dev/demo-${port}.env`;
}

export interface DemoCredentials {
  /** The demo client's secret (absent with CLIENTS_FILE). */
  readonly SECRET?: string | undefined;
  /** The demo user's password (absent with USERS_FILE). */
  readonly PASSWORD?: string | undefined;
}

/** Shell-safe without quoting: the generated values are base64url. */
const SHELL_SAFE = /^[A-Za-z0-9_-]+$/;

/** Writes the file (mode 0600 in a 0700 folder); with no demo credentials, removes a stale one. */
export async function writeDemoCredentials(file: string, credentials: DemoCredentials): Promise<void> {
  const entries = Object.entries(credentials).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (entries.length === 0) {
    await rm(file, { force: true });
    return;
  }
  for (const [name, value] of entries) {
    if (!SHELL_SAFE.test(value)) throw new Error(`${name} is not shell-safe`);
  }
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const lines = [
    '# Written by npm run dev: the demo credentials of the server running now (new at every start).',
    `# Load them into a shell with: . ${file}`,
    ...entries.map(([name, value]) => `${name}=${value}`),
  ];
  await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

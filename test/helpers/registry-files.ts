import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import { keysDirWithSigningKey, tempDir } from './keys.js';
import { cheapPasswordHash } from './passwords.js';
import { freePort } from '../../harness/ports.js';
import { type ServerProcess, startServerProcess } from '../../harness/process.js';

/** alice, who signs in on the pages of the process tests. */
export const PROCESS_ALICE = { username: 'alice', password: 'alice-password-1', sub: 'user-alice' } as const;
/** Her profile (OpenID Connect standard claims), for userinfo. */
export const PROCESS_ALICE_CLAIMS = { name: 'Alice Liddell', email: 'alice@example.com', email_verified: true } as const;

/** CLIENTS_FILE and USERS_FILE in a temporary folder: the given clients, and alice. */
export async function writeRegistryFiles(
  t: Test,
  clients: readonly unknown[],
): Promise<{ clientsFile: string; usersFile: string; dir: string }> {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(clientsFile, JSON.stringify({ clients }));
  const alice = {
    username: PROCESS_ALICE.username,
    password_hash: cheapPasswordHash(PROCESS_ALICE.password),
    sub: PROCESS_ALICE.sub,
    claims: PROCESS_ALICE_CLAIMS,
  };
  await writeFile(usersFile, JSON.stringify({ users: [alice] }));
  return { clientsFile, usersFile, dir };
}

/** The built server on a free port of 127.0.0.1 (its issuer), with a fresh signing key, these clients and alice (and `env`). */
export async function startServerWithClients(
  t: Test,
  clients: readonly unknown[],
  port?: number,
  env: Record<string, string> = {},
): Promise<ServerProcess & { readonly issuer: string }> {
  const listen = port ?? (await freePort());
  const issuer = `http://127.0.0.1:${listen}`;
  const { clientsFile, usersFile } = await writeRegistryFiles(t, clients);
  const server = await startServerProcess(t, {
    PORT: String(listen),
    ISSUER: issuer,
    // An ES256 chain for access tokens and an RS256 chain for ID tokens, as `keys rotate` makes them.
    KEYS_DIR: await keysDirWithSigningKey(t, { algs: ['ES256', 'RS256'] }),
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    ...env,
  });
  return { ...server, issuer };
}

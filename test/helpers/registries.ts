import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import { tempDir } from './keys.js';

/** CLIENTS_FILE and USERS_FILE with the given entries, in a temporary folder. */
export async function registryFiles(t: Test, clients: unknown[], users: unknown[]): Promise<{ clientsFile: string; usersFile: string }> {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(clientsFile, JSON.stringify({ clients }));
  await writeFile(usersFile, JSON.stringify({ users }));
  return { clientsFile, usersFile };
}

import { readFile } from 'node:fs/promises';

/**
 * Reads a registry file of the form `{"<member>": [...]}` (CLIENTS_FILE, USERS_FILE) and
 * returns its entries; every failure becomes one message that names the file.
 */
export async function readRegistryEntries(file: string, member: string, fail: (message: string) => Error): Promise<unknown[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const reason = err instanceof SyntaxError ? `not valid JSON (${err.message})` : ((err as NodeJS.ErrnoException).code ?? String(err));
    throw fail(`${file}: ${reason}`);
  }
  const entries = (json as Record<string, unknown> | null)?.[member];
  if (typeof json !== 'object' || json === null || Array.isArray(json) || Object.keys(json).length !== 1 || !Array.isArray(entries)) {
    throw fail(`${file}: expected {"${member}": [...]}`);
  }
  return entries;
}

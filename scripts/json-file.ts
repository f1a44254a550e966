import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Reads `{"<member>": [...]}` from a registry file, or an empty list when the file does not exist yet. */
export async function readRegistryFile(file: string, member: string): Promise<Record<string, unknown>> {
  try {
    const json = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    if (!Array.isArray(json[member])) throw new Error(`${file}: expected {"${member}": [...]}`);
    return json;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { [member]: [] };
    throw err;
  }
}

/** Replaces the file through a temporary file and rename, so a reader never sees half of it. */
export async function writeRegistryFile(file: string, json: unknown): Promise<void> {
  const temporary = join(dirname(file), `.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temporary, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temporary, file);
}

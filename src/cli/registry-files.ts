import { ClientRegistry } from '../clients/registry.js';
import { assertDistinctSubjects } from '../clients/subjects.js';
import { readRegistryEntries, withRegistryLock, writeRegistryEntries } from '../registry/file.js';
import { UserRegistry } from '../users/registry.js';
import { UsageError } from './command.js';

/**
 * What the `clients` and `users` commands share: which file, reading it as the server
 * will, and changing it under its lock (src/registry-file.ts) so that commands run at
 * once cannot lose each other's change.
 */

/** How a command reports a problem with a file: one line, exit code 1. */
export const fileFailure = (message: string): Error => new Error(message);

export type Member = 'clients' | 'users';

/** The file a command works on: its option, else the environment variable, else a usage error. */
export function chosenFile(value: string | undefined, fallback: string | undefined, member: Member): string {
  const file = value ?? fallback;
  if (!file) throw new UsageError(`name the ${member} file with --file or ${member === 'clients' ? 'CLIENTS_FILE' : 'USERS_FILE'}`);
  return file;
}

const entriesOf = (file: string, member: Member) => readRegistryEntries(file, member, fileFailure, { missingMeansEmpty: true });

/** Validates the entries as the server will load them (throwing a message that names the file and the entry). */
function validated(member: Member, entries: readonly unknown[], file: string): ClientRegistry | UserRegistry {
  return member === 'clients' ? ClientRegistry.fromMetadata(entries, file) : UserRegistry.fromEntries(entries, file);
}

async function readClients(file: string): Promise<ClientRegistry> {
  return ClientRegistry.fromMetadata(await entriesOf(file, 'clients'), file);
}

async function readUsers(file: string): Promise<UserRegistry> {
  return UserRegistry.fromEntries(await entriesOf(file, 'users'), file);
}

/**
 * Rewrites one registry file under its lock: `change` gets the current entries and
 * returns the new ones (or throws, and the file stays as it was). The new file must
 * load as the server will load it.
 */
export async function changeEntries(member: Member, file: string, change: (entries: unknown[]) => unknown[]): Promise<void> {
  await withRegistryLock(file, async () => {
    const entries = change(await entriesOf(file, member));
    validated(member, entries, file);
    await writeRegistryEntries(file, member, entries);
  });
}

/** Removes the entry whose `key` is `id`; an unknown id is refused. */
export async function removeEntry(member: Member, file: string, key: string, id: string): Promise<void> {
  const what = member === 'clients' ? 'client' : 'user';
  await changeEntries(member, file, (entries) => {
    const kept = entries.filter((entry) => (entry as Record<string, unknown> | null)?.[key] !== id);
    if (kept.length === entries.length) throw fileFailure(`no ${what} "${id}" in ${file}`);
    return kept;
  });
}

async function withLocks<T>(files: readonly string[], work: () => Promise<T>): Promise<T> {
  const [first, ...rest] = files;
  return first === undefined ? work() : withRegistryLock(first, () => withLocks(rest, work));
}

/**
 * Appends an entry to the clients or the users file. With the other file known too, it
 * holds both locks (clients first) and refuses a client_credentials client id that is a
 * user's sub (RFC 9700 §4.15; src/oauth/subjects.ts), so no collision slips in between
 * two commands run at once.
 */
export async function addEntry(member: Member, files: { clients: string | undefined; users: string | undefined }, entry: unknown) {
  const file = files[member] as string;
  const locked = [files.clients, files.users].filter((f): f is string => f !== undefined);
  await withLocks(locked, async () => {
    const entries = [...(await entriesOf(file, member)), entry];
    const changed = validated(member, entries, file);
    if (files.clients && files.users) {
      const clients = changed instanceof ClientRegistry ? changed : await readClients(files.clients);
      const users = changed instanceof UserRegistry ? changed : await readUsers(files.users);
      assertDistinctSubjects(clients.all(), users.all(), { clients: files.clients, users: files.users });
    }
    await writeRegistryEntries(file, member, entries);
  });
}

import { MERGE_PATCH_MEDIA_TYPE } from '../admin/merge-patch.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../users/password.js';
import type { AdminClient } from './admin-client.js';
import { type CliIo, type Command, parseCommandLine } from './command.js';
import { changeEntries, fileFailure } from './registry-files.js';
import { adminApiOf, REMOTE_HELP, REMOTE_OPTIONS, REMOTE_SYNOPSIS } from './remote.js';
import { passwordFromStdin, RELOAD, ROLE_OPTION, rolesOf, userPath, usersFile } from './user-lines.js';

/**
 * `users disable|enable|set-password|set-roles <user>`: one change to one user, in USERS_FILE
 * (by username) or through the admin API (by sub: PATCH with a JSON Merge Patch, or PUT of
 * the password).
 */

const OPTIONS = { file: { type: 'string' }, ...REMOTE_OPTIONS } as const;
const SYNOPSIS = `<username> [--file USERS_FILE] | <sub> ${REMOTE_SYNOPSIS}`;

type Entry = Record<string, unknown>;

interface UserChange {
  /** The user's entry in the file, changed. */
  readonly inFile: (entry: Entry) => Entry;
  /** The same change through the admin API. */
  readonly remote: (api: AdminClient, sub: string) => Promise<unknown>;
  /** The line printed after, before the user's name: `disabled user`. */
  readonly done: string;
}

/** Parses the command line, then makes the change `prepare` gives (`remote`: through the admin API) to the user it names. */
async function changeUser(
  args: readonly string[],
  io: CliIo,
  prepare: (values: { role?: string[] | undefined }, remote: boolean) => Promise<UserChange>,
  options: typeof ROLE_OPTION | Record<string, never> = {},
): Promise<void> {
  const { values, positionals } = parseCommandLine(args, { ...OPTIONS, ...options }, ['username']);
  const given = values as { role?: string[] | undefined };
  const name = positionals[0] as string;
  const api = await adminApiOf(values, io, { fileOnly: { '--file': values.file } });
  if (api) {
    const { remote, done } = await prepare(given, true);
    await remote(api, name);
    io.stdout.write(`${done} ${name} at ${api.server}\n`);
    return;
  }
  const file = usersFile(values.file, io);
  const { inFile, done } = await prepare(given, false);
  await changeEntries('users', file, (entries) => {
    const index = entries.findIndex((entry) => (entry as Entry | null)?.username === name);
    if (index < 0) throw fileFailure(`no user "${name}" in ${file}`);
    return entries.with(index, inFile(entries[index] as Entry));
  });
  io.stdout.write(`${done} ${name} in ${file}\n`);
}

const patch = (api: AdminClient, sub: string, json: Entry) => api.call('PATCH', userPath(sub), { json, mediaType: MERGE_PATCH_MEDIA_TYPE });

const without = (entry: Entry, field: string): Entry => Object.fromEntries(Object.entries(entry).filter(([name]) => name !== field));

function disabling(disabled: boolean): Command {
  const verb = disabled ? 'disable' : 'enable';
  return {
    name: verb,
    remote: true,
    synopsis: SYNOPSIS,
    summary: disabled ? 'disable a user: no sign-in, no refresh, no session' : 'enable a disabled user again',
    description: disabled
      ? `Marks the user "disabled": true in --file (default USERS_FILE): once the server has reloaded they
cannot sign in, their refresh tokens are refused and their browser sessions end. ${RELOAD}

${REMOTE_HELP}
There the user is named by their sub (a federated user's too), every instance
refuses them within a second and their grants are revoked; a user of a file is refused
(exit 1: change its file).`
      : `Removes the user's "disabled" mark in --file (default USERS_FILE): they may sign in again
(their revoked grants stay revoked). ${RELOAD}

${REMOTE_HELP}
There the user is named by their sub.`,
    run: (args, io) =>
      changeUser(args, io, async () => ({
        inFile: (entry) => (disabled ? { ...entry, disabled: true } : without(entry, 'disabled')),
        remote: (api, sub) => patch(api, sub, { disabled }),
        done: `${verb}d user`,
      })),
  };
}

const setPassword: Command = {
  name: 'set-password',
  remote: true,
  synopsis: SYNOPSIS,
  summary: "replace a user's password, read from standard input",
  description: `Replaces the user's password in --file (default USERS_FILE) with the first line of standard
input (at least ${MIN_PASSWORD_LENGTH} characters); only its scrypt hash is stored. The old password stops
working when the server reloads. ${RELOAD}

${REMOTE_HELP}
There the user is named by their sub (PUT /admin/v1/users/{sub}/password).`,
  run: (args, io) =>
    changeUser(args, io, async (_values, remote) => {
      const body = await passwordFromStdin(io);
      // Hashed before the file's lock is taken (scrypt takes a moment); the admin API hashes it itself.
      const passwordHash = remote ? '' : await hashPassword(body.password);
      return {
        inFile: (entry) => ({ ...entry, password_hash: passwordHash }),
        remote: (api, sub) => api.call('PUT', `${userPath(sub)}/password`, { json: body }),
        done: 'new password for user',
      };
    }),
};

const setRoles: Command = {
  name: 'set-roles',
  remote: true,
  synopsis: `${SYNOPSIS} [--role admin]...`,
  summary: "set a user's roles (none without --role)",
  description: `Replaces the user's roles in --file (default USERS_FILE) with those of --role (repeatable;
none: no role). admin: the user may be granted the admin API's scopes; without it, tokens
they hold for the admin API stop working. ${RELOAD}

${REMOTE_HELP}
There the user is named by their sub.`,
  run: (args, io) =>
    changeUser(
      args,
      io,
      async (values) => {
        const roles = rolesOf(values.role);
        return {
          inFile: (entry) => (roles.length > 0 ? { ...entry, roles } : without(entry, 'roles')),
          remote: (api, sub) => patch(api, sub, { roles }),
          done: `set roles ${roles.length > 0 ? roles.join(',') : '(none)'} of user`,
        };
      },
      ROLE_OPTION,
    ),
};

export const userChanges: readonly Command[] = [disabling(true), disabling(false), setPassword, setRoles];

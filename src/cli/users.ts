import { loadOperatorDefaults } from '../config/operator.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../users/password.js';
import { UserRegistry } from '../users/registry.js';
import { claimsFromOptions } from './claim-options.js';
import { type Command, type CommandGroup, parseCommandLine, UsageError } from './command.js';
import { addEntry, removeEntry } from './registry-files.js';
import { adminApiOf, REMOTE_HELP, REMOTE_OPTIONS, REMOTE_SYNOPSIS } from './remote.js';
import {
  describeRemoteUser,
  describeUser,
  lineOfUser,
  passwordFromStdin,
  RELOAD,
  ROLE_OPTION,
  rolesOf,
  userPath,
  usersFile,
} from './user-lines.js';
import { userChanges } from './users-changes.js';

/** `users add|list|remove|…`: the resource owners in USERS_FILE, or through the admin API (`--url`). */

const FILE_OPTION = { file: { type: 'string' }, ...REMOTE_OPTIONS } as const;

const add: Command = {
  name: 'add',
  remote: true,
  synopsis: `--username NAME [--sub ID] [--claim NAME=VALUE]... [--role admin]...
         [--file USERS_FILE [--clients-file CLIENTS_FILE] | ${REMOTE_SYNOPSIS}]`,
  summary: 'register a user; the password is read from standard input',
  description: `Appends a user to --file (default USERS_FILE), creating the file (mode 0600) if needed. The
password is the first line of standard input (at least ${MIN_PASSWORD_LENGTH} characters), so it stays out of the
process list and shell history:  printf '%s\\n' "$PASSWORD" | oauth2-token-service users add --username alice
Only its scrypt hash is stored. --sub (the tokens' subject) defaults to the username. With
--clients-file (default CLIENTS_FILE) it refuses a sub that is the id of a client_credentials
client (RFC 9700 §4.15). --claim (repeatable) gives the user a standard claim of OpenID Connect
(email=alice@example.com, email_verified=true, updated_at=1700000000, address.locality=Berlin),
typed as the standard says; an unknown claim or a bad value is refused (exit 2). --role admin
lets the user be granted the admin API's scopes. ${RELOAD}

${REMOTE_HELP}
There the server hashes the password and checks the rules of its files and store.`,
  async run(args, io) {
    const { values } = parseCommandLine(args, {
      ...FILE_OPTION,
      ...ROLE_OPTION,
      username: { type: 'string' },
      sub: { type: 'string' },
      claim: { type: 'string', multiple: true },
      'clients-file': { type: 'string' },
    });
    const api = await adminApiOf(values, io, { fileOnly: { '--file': values.file, '--clients-file': values['clients-file'] } });
    const file = api ? undefined : usersFile(values.file, io);
    if (!values.username) throw new UsageError('--username is required');
    const claims = claimsFromOptions(values.claim);
    const roles = rolesOf(values.role);
    const { password } = await passwordFromStdin(io);
    const user = (secret: { password_hash: string } | { password: string }) => ({
      username: values.username,
      ...secret,
      ...(values.sub !== undefined ? { sub: values.sub } : {}),
      ...(claims ? { claims } : {}),
      ...(roles.length > 0 ? { roles } : {}),
    });
    if (api) await api.call('POST', '/users', { json: user({ password }) });
    else {
      const users = file as string;
      const clients = values['clients-file'] ?? loadOperatorDefaults(io.env).clientsFile;
      await addEntry('users', { clients, users }, user({ password_hash: await hashPassword(password) }));
    }
    io.stdout.write(`added user ${values.username} to ${api?.server ?? file}\n`);
  },
};

const list: Command = {
  name: 'list',
  remote: true,
  synopsis: `[--file USERS_FILE | ${REMOTE_SYNOPSIS}]`,
  summary: 'the registered users and their subjects (never their password hashes)',
  description: `One line per user of --file (default USERS_FILE): username, sub, the names of the user's
claims (claims=email,name), their roles (roles=admin) and "disabled" for a disabled user, each
when there is one. Values with spaces are quoted. The file is validated as the server loads
it: a bad file fails (exit 1).

${REMOTE_HELP}
There it lists every user of the fleet, each with its source= (file, admin:
made through the API, federated: signed in through an identity provider, with its provider=;
a federated user has no username: its sub stands first).`,
  async run(args, io) {
    const { values } = parseCommandLine(args, FILE_OPTION);
    const api = await adminApiOf(values, io, { fileOnly: { '--file': values.file } });
    if (api) {
      for (const item of await api.listAll('/users')) io.stdout.write(`${describeRemoteUser(item)}\n`);
      return;
    }
    for (const user of (await UserRegistry.load(usersFile(values.file, io))).all()) io.stdout.write(`${describeUser(lineOfUser(user))}\n`);
  },
};

const remove: Command = {
  name: 'remove',
  remote: true,
  synopsis: `<username> [--file USERS_FILE] | <sub> ${REMOTE_SYNOPSIS}`,
  summary: 'unregister a user',
  description: `Removes the user from --file (default USERS_FILE); an unknown username is refused (exit 1).
The user can no longer sign in once the server has reloaded; refresh tokens and access
tokens already issued stay valid until they expire or are revoked. ${RELOAD}

${REMOTE_HELP}
There the user is named by their sub; every instance refuses them within a
second, their sessions end and their grants are revoked; a user of a file is refused (exit 1:
change its file).`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, FILE_OPTION, ['username']);
    const name = positionals[0] as string;
    const api = await adminApiOf(values, io, { fileOnly: { '--file': values.file } });
    if (api) {
      await api.call('DELETE', userPath(name));
      io.stdout.write(`removed user ${name} from ${api.server}\n`);
      return;
    }
    const file = usersFile(values.file, io);
    await removeEntry('users', file, 'username', name);
    io.stdout.write(`removed user ${name} from ${file}\n`);
  },
};

export const usersGroup: CommandGroup = {
  name: 'users',
  summary: 'resource owners in USERS_FILE, or of a running fleet (--url)',
  commands: [add, list, remove, ...userChanges],
};

import { loadOperatorDefaults } from '../config/operator.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../users/password.js';
import { UserRegistry } from '../users/registry.js';
import { claimsFromOptions } from './claim-options.js';
import { type CliIo, type Command, type CommandGroup, listField, parseCommandLine, readFirstLine, UsageError } from './command.js';
import { addEntry, chosenFile, fileFailure, removeEntry } from './registry-files.js';

/** `users add|list|remove`: the resource owners in USERS_FILE. */

const FILE_OPTION = { file: { type: 'string' } } as const;
const usersFile = (value: string | undefined, io: CliIo) => chosenFile(value, loadOperatorDefaults(io.env).usersFile, 'users');

const RELOAD = 'Running servers apply the change on SIGHUP.';

const add: Command = {
  name: 'add',
  synopsis: '--username NAME [--sub ID] [--claim NAME=VALUE]... [--file USERS_FILE] [--clients-file CLIENTS_FILE]',
  summary: 'register a user; the password is read from standard input',
  description: `Appends a user to --file (default USERS_FILE), creating the file (mode 0600) if needed. The
password is the first line of standard input (at least ${MIN_PASSWORD_LENGTH} characters), so it stays out of the
process list and shell history:  printf '%s\\n' "$PASSWORD" | oauth2-token-service users add --username alice
Only its scrypt hash is stored. --sub (the tokens' subject) defaults to the username. With
--clients-file (default CLIENTS_FILE) it refuses a sub that is the id of a client_credentials
client (RFC 9700 §4.15). --claim (repeatable) gives the user a standard claim of OpenID Connect
(email=alice@example.com, email_verified=true, updated_at=1700000000, address.locality=Berlin),
typed as the standard says; an unknown claim or a bad value is refused (exit 2). ${RELOAD}`,
  async run(args, io) {
    const { values } = parseCommandLine(args, {
      ...FILE_OPTION,
      username: { type: 'string' },
      sub: { type: 'string' },
      claim: { type: 'string', multiple: true },
      'clients-file': { type: 'string' },
    });
    const file = usersFile(values.file, io);
    if (!values.username) throw new UsageError('--username is required');
    const claims = claimsFromOptions(values.claim);
    const password = await readFirstLine(io.stdin);
    if (password === '') throw new UsageError('no password on standard input (pipe it in; see --help)');
    if ([...password].length < MIN_PASSWORD_LENGTH) {
      throw fileFailure(`the password (read from standard input) must have at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    const user = {
      username: values.username,
      password_hash: await hashPassword(password),
      ...(values.sub !== undefined ? { sub: values.sub } : {}),
      ...(claims ? { claims } : {}),
    };
    await addEntry('users', { clients: values['clients-file'] ?? loadOperatorDefaults(io.env).clientsFile, users: file }, user);
    io.stdout.write(`added user ${values.username} to ${file}\n`);
  },
};

const list: Command = {
  name: 'list',
  synopsis: '[--file USERS_FILE]',
  summary: 'the registered users and their subjects (never their password hashes)',
  description: `One line per user of --file (default USERS_FILE): username, sub, and the names of the user's
claims (claims=email,name), if any. Values with spaces are quoted. The file is validated as
the server loads it: a bad file fails (exit 1).`,
  async run(args, io) {
    const { values } = parseCommandLine(args, FILE_OPTION);
    for (const user of (await UserRegistry.load(usersFile(values.file, io))).all()) {
      const claims = Object.keys(user.claims);
      const fields = [listField(undefined, user.username), listField('sub', user.sub)];
      if (claims.length > 0) fields.push(listField('claims', claims.join(',')));
      io.stdout.write(`${fields.join('  ')}\n`);
    }
  },
};

const remove: Command = {
  name: 'remove',
  synopsis: '<username> [--file USERS_FILE]',
  summary: 'unregister a user',
  description: `Removes the user from --file (default USERS_FILE); an unknown username is refused (exit 1).
The user can no longer sign in once the server has reloaded; refresh tokens and access
tokens already issued stay valid until they expire or are revoked. ${RELOAD}`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, FILE_OPTION, ['username']);
    const file = usersFile(values.file, io);
    const username = positionals[0] as string;
    await removeEntry('users', file, 'username', username);
    io.stdout.write(`removed user ${username} from ${file}\n`);
  },
};

export const usersGroup: CommandGroup = { name: 'users', summary: 'resource owners in USERS_FILE', commands: [add, list, remove] };

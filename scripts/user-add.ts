import { parseArgs } from 'node:util';
import { ClientRegistry } from '../src/clients/registry.js';
import { loadOperatorDefaults } from '../src/config.js';
import { assertDistinctSubjects } from '../src/oauth/subjects.js';
import { readRegistryEntries, writeRegistryEntries } from '../src/registry-file.js';
import { hashPassword } from '../src/users/password.js';
import { UserRegistry } from '../src/users/registry.js';
import { failure, printedUsage, runCli } from './cli.js';

const USAGE = `usage: printf '%s\\n' "$PASSWORD" | npm run user:add -- --username NAME [--sub ID] [--file USERS_FILE] [--clients-file CLIENTS_FILE]
The password is read from standard input, so it stays out of the process list and shell history.`;

const MIN_PASSWORD_LENGTH = 8;

/** The first line of standard input, without its line ending. */
async function readFirstLine(): Promise<string> {
  let input = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    input += chunk;
    if (input.includes('\n')) break;
  }
  return input.split(/\r?\n/, 1)[0] ?? '';
}

/** Registers a resource owner with a scrypt password hash. */
await runCli(async () => {
  const { values } = parseArgs({
    options: {
      file: { type: 'string' },
      username: { type: 'string' },
      sub: { type: 'string' },
      'clients-file': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (printedUsage(values.help, USAGE)) return;
  const defaults = loadOperatorDefaults();
  const file = values.file ?? defaults.usersFile;
  if (!file) throw new Error('name the users file with --file or USERS_FILE');
  if (!values.username) throw new Error('--username is required');

  const password = await readFirstLine();
  if (password === '') throw new Error('no password on standard input (pipe it in; see --help)');
  if ([...password].length < MIN_PASSWORD_LENGTH)
    throw new Error(`the password (read from standard input) must have at least ${MIN_PASSWORD_LENGTH} characters`);
  const user = {
    username: values.username,
    password_hash: await hashPassword(password),
    ...(values.sub !== undefined ? { sub: values.sub } : {}),
  };

  const users = [...(await readRegistryEntries(file, 'users', failure, { missingMeansEmpty: true })), user];
  const registry = UserRegistry.fromEntries(users, file); // the whole file must still load, as the server will load it
  const clientsFile = values['clients-file'] ?? defaults.clientsFile;
  if (clientsFile) {
    const clients = ClientRegistry.fromMetadata(
      await readRegistryEntries(clientsFile, 'clients', failure, { missingMeansEmpty: true }),
      clientsFile,
    );
    assertDistinctSubjects(clients.all(), registry.all(), { clients: clientsFile, users: file });
  }
  await writeRegistryEntries(file, 'users', users);
  process.stdout.write(`added user ${values.username} to ${file}\n`);
});

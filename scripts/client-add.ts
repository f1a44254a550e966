import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ClientRegistry } from '../src/clients/registry.js';
import { generateClientSecret, hashClientSecret } from '../src/clients/secret.js';
import { loadOperatorDefaults } from '../src/config.js';
import { assertDistinctSubjects } from '../src/oauth/subjects.js';
import { readRegistryEntries, writeRegistryEntries } from '../src/registry-file.js';
import { UserRegistry } from '../src/users/registry.js';
import { failure, printedUsage, runCli } from './cli.js';

const USAGE = `usage: npm run client:add -- [--file CLIENTS_FILE] [--id ID] [--name NAME] [--grant TYPE]... [--scope "a b"]
         [--redirect-uri URI]... [--response-type code|token]... [--auth-method client_secret_basic|client_secret_post|none]
         [--introspect-all-tokens] [--users-file USERS_FILE]`;

/** Registers a client: generates an id and a 256-bit secret, appends it, prints the secret once. */
await runCli(async () => {
  const { values } = parseArgs({
    options: {
      file: { type: 'string' },
      id: { type: 'string' },
      name: { type: 'string' },
      grant: { type: 'string', multiple: true },
      scope: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'response-type': { type: 'string', multiple: true },
      'auth-method': { type: 'string' },
      'introspect-all-tokens': { type: 'boolean' },
      'users-file': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (printedUsage(values.help, USAGE)) return;
  const defaults = loadOperatorDefaults();
  const file = values.file ?? defaults.clientsFile;
  if (!file) throw new Error('name the clients file with --file or CLIENTS_FILE');

  const authMethod = values['auth-method'] ?? 'client_secret_basic';
  const secret = authMethod === 'none' ? undefined : generateClientSecret();
  const client = {
    client_id: values.id ?? `client-${randomBytes(12).toString('base64url')}`,
    ...(values.name ? { client_name: values.name } : {}),
    ...(secret ? { client_secret_hash: hashClientSecret(secret) } : {}),
    redirect_uris: values['redirect-uri'] ?? [],
    grant_types: values.grant ?? ['client_credentials'],
    ...(values['response-type'] ? { response_types: values['response-type'] } : {}),
    scope: values.scope ?? '',
    token_endpoint_auth_method: authMethod,
    ...(values['introspect-all-tokens'] ? { introspect_all_tokens: true } : {}),
  };

  const clients = [...(await readRegistryEntries(file, 'clients', failure, { missingMeansEmpty: true })), client];
  const registry = ClientRegistry.fromMetadata(clients, file); // the whole file must still load, as the server will load it
  const usersFile = values['users-file'] ?? defaults.usersFile;
  if (usersFile) {
    const users = UserRegistry.fromEntries(await readRegistryEntries(usersFile, 'users', failure, { missingMeansEmpty: true }), usersFile);
    assertDistinctSubjects(registry.all(), users.all(), { clients: file, users: usersFile });
  }
  await writeRegistryEntries(file, 'clients', clients);

  process.stdout.write(`added client ${client.client_id} to ${file}\n`);
  if (secret) process.stdout.write(`client_secret: ${secret}\n(shown once: only its hash is stored)\n`);
});

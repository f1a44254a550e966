import { randomBytes } from 'node:crypto';
import { ClientRegistry, GRANT_TYPES } from '../clients/registry.js';
import { generateClientSecret, hashClientSecret } from '../clients/secret.js';
import { loadOperatorDefaults } from '../config/operator.js';
import { readJsonFile } from '../registry/file.js';
import { describeClient, lineOfClient, printSecret } from './client-lines.js';
import { addRemoteClient, listRemoteClients, removeRemoteClient, rotateRemoteSecret } from './clients-remote.js';
import { type CliIo, type Command, type CommandGroup, parseCommandLine, UsageError, wholeSeconds } from './command.js';
import { addEntry, changeEntries, chosenFile, fileFailure, removeEntry } from './registry-files.js';
import { adminApiOf, REMOTE_HELP, REMOTE_OPTIONS, REMOTE_SYNOPSIS } from './remote.js';

/** `clients add|list|remove|rotate-secret`: the registered clients in CLIENTS_FILE, or through the admin API (clients-remote.ts). */

const FILE_OPTION = { file: { type: 'string' }, ...REMOTE_OPTIONS } as const;
const clientsFile = (value: string | undefined, io: CliIo) => chosenFile(value, loadOperatorDefaults(io.env).clientsFile, 'clients');

const RELOAD = 'Running servers apply the change on SIGHUP.';

/** A grant type as --grant names it: `device_code` (and the other URN grant types) by the last part of its URN. */
function grantType(value: string): string {
  const urn = `urn:ietf:params:oauth:grant-type:${value}`;
  return (GRANT_TYPES as readonly string[]).includes(urn) ? urn : value;
}

/** The public keys of a private_key_jwt client: the JWK Set of --jwks-file, or --jwks-uri (the schema checks either). */
async function keyOptions(jwksFile: string | undefined, jwksUri: string | undefined, alg: string | undefined) {
  if (jwksFile !== undefined && jwksUri !== undefined) throw new UsageError('--jwks-file and --jwks-uri: one or the other');
  return {
    ...(jwksFile === undefined ? {} : { jwks: await readJsonFile(jwksFile, fileFailure) }),
    ...(jwksUri === undefined ? {} : { jwks_uri: jwksUri }),
    ...(alg === undefined ? {} : { token_endpoint_auth_signing_alg: alg }),
  };
}

const add: Command = {
  name: 'add',
  remote: true,
  synopsis: `[--file CLIENTS_FILE] [--id ID] [--name NAME] [--grant TYPE]... [--scope "a b"]
         [--redirect-uri URI]... [--response-type code|token]...
         [--auth-method client_secret_basic|client_secret_post|private_key_jwt|none]
         [--jwks-file FILE | --jwks-uri URI] [--signing-alg ES256|EdDSA|Ed25519|RS256|PS256]
         [--introspect-all-tokens] [--post-logout-redirect-uri URI]... [--id-token-alg ES256|EdDSA|RS256|PS256]
         [--default-max-age SECONDS] [--require-auth-time] [--users-file USERS_FILE]
         [${REMOTE_SYNOPSIS}]`,
  summary: 'register a client; prints its generated secret once',
  description: `Appends a client to --file (default CLIENTS_FILE), creating the file (mode 0600) if needed.
--id defaults to a random "client-…"; --grant (repeatable) to client_credentials (device_code,
token-exchange and jwt-bearer stand for their urn:ietf:params:oauth:grant-type: URNs); --auth-method
to client_secret_basic. A client with a secret gets a 256-bit one, printed once; only its
SHA-256 digest is stored. A private_key_jwt client gets no secret: it signs assertions with
its own keys, whose public halves are the JWK Set in --jwks-file (copied into the file) or
at --jwks-uri (fetched by the server); --signing-alg allows only that algorithm. For OpenID
Connect: --post-logout-redirect-uri (repeatable), --id-token-alg (the ID tokens' algorithm;
RS256 when left out), --default-max-age and --require-auth-time. The whole file must still load as the server loads it. With
--users-file (default USERS_FILE) it refuses a client_credentials client whose id is a user's
sub (RFC 9700 §4.15). ${RELOAD}

${REMOTE_HELP}
There the server generates the secret, prints it once, and checks the rules
of its files and store (not --file, --users-file).`,
  async run(args, io) {
    const { values } = parseCommandLine(args, {
      ...FILE_OPTION,
      id: { type: 'string' },
      name: { type: 'string' },
      grant: { type: 'string', multiple: true },
      scope: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'response-type': { type: 'string', multiple: true },
      'auth-method': { type: 'string' },
      'introspect-all-tokens': { type: 'boolean' },
      'post-logout-redirect-uri': { type: 'string', multiple: true },
      'id-token-alg': { type: 'string' },
      'default-max-age': { type: 'string' },
      'require-auth-time': { type: 'boolean' },
      'users-file': { type: 'string' },
      'jwks-file': { type: 'string' },
      'jwks-uri': { type: 'string' },
      'signing-alg': { type: 'string' },
    });
    const defaultMaxAge =
      values['default-max-age'] === undefined ? undefined : wholeSeconds('--default-max-age', values['default-max-age'], 0);
    const api = await adminApiOf(values, io, { fileOnly: { '--file': values.file, '--users-file': values['users-file'] } });
    const authMethod = values['auth-method'] ?? 'client_secret_basic';
    const keys = await keyOptions(values['jwks-file'], values['jwks-uri'], values['signing-alg']);
    const entry = (secretHash?: string) => ({
      client_id: values.id ?? `client-${randomBytes(12).toString('base64url')}`,
      ...(values.name ? { client_name: values.name } : {}),
      ...(secretHash ? { client_secret_hash: secretHash } : {}),
      redirect_uris: values['redirect-uri'] ?? [],
      grant_types: values.grant?.map(grantType) ?? ['client_credentials'],
      ...(values['response-type'] ? { response_types: values['response-type'] } : {}),
      scope: values.scope ?? '',
      token_endpoint_auth_method: authMethod,
      ...keys,
      ...(values['introspect-all-tokens'] ? { introspect_all_tokens: true } : {}),
      ...(values['post-logout-redirect-uri'] ? { post_logout_redirect_uris: values['post-logout-redirect-uri'] } : {}),
      ...(values['id-token-alg'] !== undefined ? { id_token_signed_response_alg: values['id-token-alg'] } : {}),
      ...(defaultMaxAge !== undefined ? { default_max_age: defaultMaxAge } : {}),
      ...(values['require-auth-time'] ? { require_auth_time: true } : {}),
    });
    // Through the admin API the server makes the secret, and answers it once.
    if (api) return addRemoteClient(api, entry(), io);
    const file = clientsFile(values.file, io);
    const secret = authMethod === 'none' || authMethod === 'private_key_jwt' ? undefined : generateClientSecret();
    const client = entry(secret && hashClientSecret(secret));
    await addEntry('clients', { clients: file, users: values['users-file'] ?? loadOperatorDefaults(io.env).usersFile }, client);
    io.stdout.write(`added client ${client.client_id} to ${file}\n`);
    if (secret) printSecret(io, secret);
  },
};

const list: Command = {
  name: 'list',
  remote: true,
  synopsis: `[--file CLIENTS_FILE] | ${REMOTE_SYNOPSIS} [--source file|admin|registration] [--grant TYPE] [--search TEXT]`,
  summary: 'the registered clients and their metadata (never their secret hashes)',
  description: `One line per client of --file (default CLIENTS_FILE): client_id, auth method (with a
private_key_jwt client's jwks key ids or jwks_uri, and its signing_alg), grants, scope,
response types, redirect URIs, introspect_all_tokens, post-logout redirect URIs, ID token
algorithm, default_max_age, require_auth_time, name. Values with spaces are quoted.
The file is validated as the server loads it: a bad file fails (exit 1) with the server's message.

${REMOTE_HELP}
There it lists every client the fleet serves, each with its source=
(file, admin: made through the API, registration: registered by itself), and "disabled" for a
disabled one; --source, --grant (a grant type, as for add) and --search (part of the id or the
name) narrow the list.`,
  async run(args, io) {
    const { values } = parseCommandLine(args, {
      ...FILE_OPTION,
      source: { type: 'string' },
      grant: { type: 'string' },
      search: { type: 'string' },
    });
    const filters = { source: values.source, grantType: values.grant && grantType(values.grant), search: values.search };
    const api = await adminApiOf(values, io, {
      fileOnly: { '--file': values.file },
      remoteOnly: { '--source': values.source, '--grant': values.grant, '--search': values.search },
    });
    if (api) return listRemoteClients(api, filters, io);
    const file = clientsFile(values.file, io);
    for (const client of (await ClientRegistry.load(file)).all()) io.stdout.write(`${describeClient(lineOfClient(client))}\n`);
  },
};

const remove: Command = {
  name: 'remove',
  remote: true,
  synopsis: `<client_id> [--file CLIENTS_FILE | ${REMOTE_SYNOPSIS}]`,
  summary: 'unregister a client',
  description: `Removes the client from --file (default CLIENTS_FILE); an unknown client_id is refused (exit 1).
Its refresh tokens and codes fail once the server has reloaded (the client is unknown);
access tokens already issued stay valid until they expire. ${RELOAD}

${REMOTE_HELP}
There every instance refuses the client within a second and its grants are
revoked; a client of a file is refused (exit 1: change its file), a dynamically registered
one is deleted (cleanup).`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, FILE_OPTION, ['client_id']);
    const clientId = positionals[0] as string;
    const api = await adminApiOf(values, io, { fileOnly: { '--file': values.file } });
    if (api) return removeRemoteClient(api, clientId, io);
    const file = clientsFile(values.file, io);
    await removeEntry('clients', file, 'client_id', clientId);
    io.stdout.write(`removed client ${clientId} from ${file}\n`);
  },
};

const rotateSecret: Command = {
  name: 'rotate-secret',
  remote: true,
  synopsis: `<client_id> [--file CLIENTS_FILE | ${REMOTE_SYNOPSIS}]`,
  summary: 'replace a client secret; prints the new one once',
  description: `Generates a new 256-bit secret for a confidential client of --file (default CLIENTS_FILE),
stores only its digest and prints it once. The old secret stops working when the server
reloads (SIGHUP): give the client its new secret first. An unknown client_id, or a public
client (token_endpoint_auth_method "none"), is refused (exit 1).

${REMOTE_HELP}
There the server generates the secret, and every instance takes it within a
second: the old one stops working at once.`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, FILE_OPTION, ['client_id']);
    const clientId = positionals[0] as string;
    const api = await adminApiOf(values, io, { fileOnly: { '--file': values.file } });
    if (api) return rotateRemoteSecret(api, clientId, io);
    const file = clientsFile(values.file, io);
    const secret = generateClientSecret();
    await changeEntries('clients', file, (entries) => {
      const index = entries.findIndex((entry) => (entry as Record<string, unknown> | null)?.client_id === clientId);
      const entry = entries[index] as Record<string, unknown> | undefined;
      if (!entry) throw fileFailure(`no client "${clientId}" in ${file}`);
      if (entry.token_endpoint_auth_method === 'none') {
        throw fileFailure(`client "${clientId}" is a public client (token_endpoint_auth_method "none"): it has no secret`);
      }
      if (entry.token_endpoint_auth_method === 'private_key_jwt') {
        throw fileFailure(`client "${clientId}" authenticates with its keys (private_key_jwt): it has no secret`);
      }
      return entries.with(index, { ...entry, client_secret_hash: hashClientSecret(secret) });
    });
    io.stdout.write(`new secret for client ${clientId} in ${file}\n`);
    printSecret(io, secret);
  },
};

export const clientsGroup: CommandGroup = {
  name: 'clients',
  summary: 'registered clients in CLIENTS_FILE, or of a running fleet (--url)',
  commands: [add, list, remove, rotateSecret],
};

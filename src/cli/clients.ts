import { randomBytes } from 'node:crypto';
import type { ClientKeysSource } from '../clients/client-jwks.js';
import { type Client, ClientRegistry, GRANT_TYPES } from '../clients/registry.js';
import { generateClientSecret, hashClientSecret } from '../clients/secret.js';
import { loadOperatorDefaults } from '../config/operator.js';
import { readJsonFile } from '../registry/file.js';
import { type CliIo, type Command, type CommandGroup, listField, parseCommandLine, UsageError, wholeSeconds } from './command.js';
import { addEntry, changeEntries, chosenFile, fileFailure, removeEntry } from './registry-files.js';

/** `clients add|list|remove|rotate-secret`: the registered clients in CLIENTS_FILE. */

const FILE_OPTION = { file: { type: 'string' } } as const;
const clientsFile = (value: string | undefined, io: CliIo) => chosenFile(value, loadOperatorDefaults(io.env).clientsFile, 'clients');

const RELOAD = 'Running servers apply the change on SIGHUP.';

/** The secret, once: it is never stored (only its SHA-256 digest is) and cannot be shown again. */
function printSecret(io: CliIo, secret: string): void {
  io.stdout.write(`client_secret: ${secret}\n(shown once: only its hash is stored)\n`);
}

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
  synopsis: `[--file CLIENTS_FILE] [--id ID] [--name NAME] [--grant TYPE]... [--scope "a b"]
         [--redirect-uri URI]... [--response-type code|token]...
         [--auth-method client_secret_basic|client_secret_post|private_key_jwt|none]
         [--jwks-file FILE | --jwks-uri URI] [--signing-alg ES256|EdDSA|Ed25519|RS256|PS256]
         [--introspect-all-tokens] [--post-logout-redirect-uri URI]... [--id-token-alg ES256|EdDSA|RS256|PS256]
         [--default-max-age SECONDS] [--require-auth-time] [--users-file USERS_FILE]`,
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
sub (RFC 9700 §4.15). ${RELOAD}`,
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
    const file = clientsFile(values.file, io);
    const authMethod = values['auth-method'] ?? 'client_secret_basic';
    const secret = authMethod === 'none' || authMethod === 'private_key_jwt' ? undefined : generateClientSecret();
    const keys = await keyOptions(values['jwks-file'], values['jwks-uri'], values['signing-alg']);
    const client = {
      client_id: values.id ?? `client-${randomBytes(12).toString('base64url')}`,
      ...(values.name ? { client_name: values.name } : {}),
      ...(secret ? { client_secret_hash: hashClientSecret(secret) } : {}),
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
    };
    await addEntry('clients', { clients: file, users: values['users-file'] ?? loadOperatorDefaults(io.env).usersFile }, client);
    io.stdout.write(`added client ${client.client_id} to ${file}\n`);
    if (secret) printSecret(io, secret);
  },
};

/** Where a private_key_jwt client's keys are: the kids of its JWK Set, or its jwks_uri. */
function keysField(keys: ClientKeysSource): string {
  if ('jwksUri' in keys) return listField('jwks_uri', keys.jwksUri);
  return listField('jwks', keys.jwks.keys.map((key, index) => key.kid ?? `#${index + 1}`).join(','));
}

function describeClient(client: Client): string {
  return [
    listField(undefined, client.clientId),
    listField('auth', client.authMethod),
    ...(client.keys ? [keysField(client.keys)] : []),
    ...(client.assertionSigningAlg ? [listField('signing_alg', client.assertionSigningAlg)] : []),
    listField('grants', [...client.grantTypes].join(',')),
    listField('scope', client.scope.join(' ')),
    ...(client.responseTypes.size > 0 ? [listField('response_types', [...client.responseTypes].join(','))] : []),
    ...(client.redirectUris.length > 0 ? [listField('redirect_uris', client.redirectUris.join(' '))] : []),
    ...(client.introspectAllTokens ? ['introspect_all_tokens'] : []),
    ...(client.postLogoutRedirectUris ? [listField('post_logout_redirect_uris', client.postLogoutRedirectUris.join(' '))] : []),
    ...(client.idTokenSignedResponseAlg ? [listField('id_token_alg', client.idTokenSignedResponseAlg)] : []),
    ...(client.defaultMaxAge !== undefined ? [listField('default_max_age', String(client.defaultMaxAge))] : []),
    ...(client.requireAuthTime ? ['require_auth_time'] : []),
    ...(client.clientName ? [listField('name', client.clientName)] : []),
  ].join('  ');
}

const list: Command = {
  name: 'list',
  synopsis: '[--file CLIENTS_FILE]',
  summary: 'the registered clients and their metadata (never their secret hashes)',
  description: `One line per client of --file (default CLIENTS_FILE): client_id, auth method (with a
private_key_jwt client's jwks key ids or jwks_uri, and its signing_alg), grants, scope,
response types, redirect URIs, introspect_all_tokens, post-logout redirect URIs, ID token
algorithm, default_max_age, require_auth_time, name. Values with spaces are quoted.
The file is validated as the server loads it: a bad file fails (exit 1) with the server's message.`,
  async run(args, io) {
    const { values } = parseCommandLine(args, FILE_OPTION);
    const file = clientsFile(values.file, io);
    for (const client of (await ClientRegistry.load(file)).all()) io.stdout.write(`${describeClient(client)}\n`);
  },
};

const remove: Command = {
  name: 'remove',
  synopsis: '<client_id> [--file CLIENTS_FILE]',
  summary: 'unregister a client',
  description: `Removes the client from --file (default CLIENTS_FILE); an unknown client_id is refused (exit 1).
Its refresh tokens and codes fail once the server has reloaded (the client is unknown);
access tokens already issued stay valid until they expire. ${RELOAD}`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, FILE_OPTION, ['client_id']);
    const file = clientsFile(values.file, io);
    const clientId = positionals[0] as string;
    await removeEntry('clients', file, 'client_id', clientId);
    io.stdout.write(`removed client ${clientId} from ${file}\n`);
  },
};

const rotateSecret: Command = {
  name: 'rotate-secret',
  synopsis: '<client_id> [--file CLIENTS_FILE]',
  summary: 'replace a client secret; prints the new one once',
  description: `Generates a new 256-bit secret for a confidential client of --file (default CLIENTS_FILE),
stores only its digest and prints it once. The old secret stops working when the server
reloads (SIGHUP): give the client its new secret first. An unknown client_id, or a public
client (token_endpoint_auth_method "none"), is refused (exit 1).`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, FILE_OPTION, ['client_id']);
    const file = clientsFile(values.file, io);
    const clientId = positionals[0] as string;
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
  summary: 'registered clients in CLIENTS_FILE',
  commands: [add, list, remove, rotateSecret],
};

import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import { z } from 'zod';
import { RESPONSE_TYPES, type ResponseType } from '../oauth/response-mode.js';
import { parseScope } from '../oauth/scope.js';
import { isHttpsOrLocalUrl } from '../oauth/urls.js';
import { CLIENT_ASSERTION_ALGORITHMS } from '../oauth/client-assertion.js';
import { type ClientKeysSource, clientJwksProblem, type PublicJwks } from './client-jwks.js';
import { type EntryNaming, type FileEntry, parseEntries, readEntries, Registry } from '../registry/registry.js';
import { DEFAULT_MAX_AGE_PROBLEM, idTokenAlgorithmProblem, isDefaultMaxAge } from './openid-metadata.js';
import { isSerializedWebOrigin, originsAllowedBy } from './origins.js';
import { SECRET_HASH_PATTERN, storedSecretDigest } from './secret.js';
import { JWT_BEARER_GRANT, TOKEN_EXCHANGE_GRANT, TokenExchangePolicySchema, tokenExchangePolicyOf } from './token-exchange-policy.js';

export type { TokenExchangePolicy } from './token-exchange-policy.js';
import { FEDERATED_PREFIX, FEDERATED_PREFIX_RESERVED } from '../shared/federated-prefix.js';
import { WORKLOAD_CLIENT_PREFIX, WORKLOAD_PREFIX_RESERVED } from '../shared/workload-prefix.js';
import { CONSOLE_CLIENT_ID, CONSOLE_CLIENT_ID_RESERVED } from '../shared/console-client.js';
import { AUTH_METHODS, type Client, GRANT_TYPES } from './client.js';

export { AUTH_METHODS, DEVICE_CODE_GRANT, GRANT_TYPES } from './client.js';
export type { Client, ClientAuthMethod, GrantTypeName } from './client.js';

export const redirectUri = z.string().superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be an absolute URI' });
    return;
  }
  // RFC 6749 §3.1.2: "The endpoint URI MUST NOT include a fragment component."
  if (value.includes('#') || url.hash) ctx.addIssue({ code: 'custom', message: 'must not have a fragment' });
});

/** A URL the pages show (logo_uri) or link to (client_uri): https, or http on this computer for development. */
const displayUrl = z
  .string()
  .max(2048)
  .refine(isHttpsOrLocalUrl, 'must be an absolute https URL (http only on localhost, for development), without fragment');

/** A refinement that adds the problem `problemOf` finds in a value, if any. */
function refusing<T>(problemOf: (value: T) => string | undefined) {
  return (value: T, ctx: z.RefinementCtx<T>) => {
    const problem = problemOf(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };
}

/** A client's metadata as CLIENTS_FILE, the store's entries and the admin API hold it (one validation function). */
export const ClientSchema = z
  .object({
    client_id: z
      .string()
      .regex(/^[\x21-\x7E]{1,128}$/, 'must be 1-128 printable ASCII characters without spaces')
      .refine((id) => !id.startsWith(WORKLOAD_CLIENT_PREFIX), WORKLOAD_PREFIX_RESERVED)
      .refine((id) => id !== CONSOLE_CLIENT_ID, CONSOLE_CLIENT_ID_RESERVED),
    client_name: z.string().min(1).max(200).optional(),
    client_uri: displayUrl.optional(),
    logo_uri: displayUrl.optional(),
    client_secret_hash: z.string().regex(SECRET_HASH_PATTERN, 'must be the output of "oauth2-token-service secret hash"').optional(),
    redirect_uris: z.array(redirectUri).default([]),
    grant_types: z.array(z.enum(GRANT_TYPES)).min(1).default(['authorization_code']),
    response_types: z.array(z.enum(RESPONSE_TYPES)).optional(),
    scope: z
      .string()
      .default('')
      .refine((s) => s === '' || parseScope(s) !== undefined, 'must be space-separated scope tokens (RFC 6749 §3.3)'),
    token_endpoint_auth_method: z.enum(AUTH_METHODS).default('client_secret_basic'),
    introspect_all_tokens: z.boolean().default(false),
    dpop_bound_access_tokens: z.boolean().default(false),
    allowed_origins: z
      .array(z.string().refine(isSerializedWebOrigin, 'must be an origin: http(s)://host[:port] with no path, as browsers send it'))
      .default([]),
    /** A first-party client: its users are never asked for consent (unless it asks itself, with prompt=consent). */
    skip_consent: z.boolean().default(false),
    /** Where /oauth2/logout may send the browser afterwards (exact match), as in OpenID Connect RP-Initiated Logout. */
    post_logout_redirect_uris: z.array(redirectUri).default([]),
    // OpenID Connect Dynamic Client Registration 1.0 §2 (openid-metadata.ts).
    id_token_signed_response_alg: z.string().superRefine(refusing(idTokenAlgorithmProblem)).optional(),
    default_max_age: z.number().refine(isDefaultMaxAge, DEFAULT_MAX_AGE_PROBLEM).optional(),
    require_auth_time: z.boolean().default(false),
    /** RFC 8693: what the client may exchange (token-exchange-policy.ts). */
    token_exchange: TokenExchangePolicySchema.optional(),
    // private_key_jwt (RFC 7523 §2.2): the client's public keys, inline or at a URL we fetch.
    jwks: z.unknown().superRefine(refusing(clientJwksProblem)).optional(),
    jwks_uri: z
      .string()
      .max(2048)
      .refine(isHttpsOrLocalUrl, 'must be an absolute https URL (http only on localhost, for development), without fragment')
      .optional(),
    token_endpoint_auth_signing_alg: z.enum(CLIENT_ASSERTION_ALGORITHMS).optional(),
    /** Refused everywhere (the token, authorization and every other endpoint) while true; its grants were revoked. */
    disabled: z.boolean().default(false),
  })
  .strict()
  .superRefine((c, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    const isPublic = c.token_endpoint_auth_method === 'none';
    const withKeys = c.token_endpoint_auth_method === 'private_key_jwt';
    if (isPublic && c.client_secret_hash)
      problem('client_secret_hash', 'a public client (token_endpoint_auth_method "none") has no secret');
    if (withKeys && c.client_secret_hash)
      problem('client_secret_hash', 'a private_key_jwt client authenticates with its keys: it has no secret');
    if (!isPublic && !withKeys && !c.client_secret_hash)
      problem('client_secret_hash', `required with token_endpoint_auth_method "${c.token_endpoint_auth_method}"`);
    if (withKeys && (c.jwks === undefined) === (c.jwks_uri === undefined))
      problem('jwks', "private_key_jwt needs the client's public keys: either jwks or jwks_uri, not both");
    for (const field of ['jwks', 'jwks_uri', 'token_endpoint_auth_signing_alg'] as const)
      if (!withKeys && c[field] !== undefined) problem(field, 'only with token_endpoint_auth_method "private_key_jwt"');
    // RFC 6749 §4.4: "The client credentials grant type MUST only be used by confidential clients."
    if (isPublic && c.grant_types.includes('client_credentials')) problem('grant_types', 'client_credentials needs a confidential client');
    // Introspection needs an authenticated caller (RFC 7662 §2.1), so the right is a confidential client's.
    if (isPublic && c.introspect_all_tokens)
      problem('introspect_all_tokens', 'a public client cannot introspect; only a confidential client may hold this right');
    const redirects = c.grant_types.includes('authorization_code') || c.grant_types.includes('implicit');
    if (redirects && c.redirect_uris.length === 0) problem('redirect_uris', 'required for authorization_code and implicit');
    const exchanges = c.grant_types.includes(TOKEN_EXCHANGE_GRANT);
    if (exchanges && isPublic) problem('grant_types', 'token exchange needs a confidential client');
    if (exchanges && !c.token_exchange)
      problem('token_exchange', `required with the grant type ${TOKEN_EXCHANGE_GRANT}: what the client may exchange`);
    if (!exchanges && c.token_exchange) problem('token_exchange', `only with the grant type ${TOKEN_EXCHANGE_GRANT} in grant_types`);
    if (isPublic && c.grant_types.includes(JWT_BEARER_GRANT)) problem('grant_types', 'the JWT bearer grant needs a confidential client');
  });

export type ClientMetadata = z.input<typeof ClientSchema>;

/** The keys and algorithm of a private_key_jwt client (validated by the schema). */
function keysOf(c: z.output<typeof ClientSchema>): Pick<Client, 'keys' | 'assertionSigningAlg'> {
  if (c.token_endpoint_auth_method !== 'private_key_jwt') return {};
  const keys: ClientKeysSource = c.jwks_uri !== undefined ? { jwksUri: c.jwks_uri } : { jwks: structuredClone(c.jwks) as PublicJwks };
  return { keys, ...(c.token_endpoint_auth_signing_alg ? { assertionSigningAlg: c.token_endpoint_auth_signing_alg } : {}) };
}

function toClient(c: z.output<typeof ClientSchema>): Client {
  const defaultResponseTypes: ResponseType[] = c.grant_types.includes('authorization_code') ? ['code'] : [];
  return Object.freeze({
    clientId: c.client_id,
    clientName: c.client_name,
    clientUri: c.client_uri,
    logoUri: c.logo_uri,
    secretDigest: c.client_secret_hash === undefined ? undefined : storedSecretDigest(c.client_secret_hash),
    redirectUris: Object.freeze([...c.redirect_uris]),
    grantTypes: new Set(c.grant_types),
    responseTypes: new Set(c.response_types ?? defaultResponseTypes),
    scope: Object.freeze(c.scope === '' ? [] : (parseScope(c.scope) ?? [])),
    authMethod: c.token_endpoint_auth_method,
    introspectAllTokens: c.introspect_all_tokens,
    ...(c.skip_consent ? { skipConsent: true as const } : {}),
    ...(c.post_logout_redirect_uris.length ? { postLogoutRedirectUris: Object.freeze([...c.post_logout_redirect_uris]) } : {}),
    ...(c.id_token_signed_response_alg ? { idTokenSignedResponseAlg: c.id_token_signed_response_alg as SigningAlgorithm } : {}),
    ...(c.default_max_age !== undefined ? { defaultMaxAge: c.default_max_age } : {}),
    ...(c.require_auth_time ? { requireAuthTime: true as const } : {}),
    ...(c.dpop_bound_access_tokens ? { dpopBoundAccessTokens: true as const } : {}),
    ...(c.token_exchange ? { tokenExchange: tokenExchangePolicyOf(c.token_exchange) } : {}),
    ...(c.disabled ? { disabled: true as const } : {}),
    ...keysOf(c),
    corsOrigins: originsAllowedBy({
      isPublic: c.token_endpoint_auth_method === 'none',
      redirectUris: c.redirect_uris,
      allowedOrigins: c.allowed_origins,
    }),
  });
}

/** One client's metadata under the CLIENTS_FILE rules; throws ClientsFileError naming the field. */
export function clientFromMetadata(entry: unknown, source: string): Client {
  return (ClientRegistry.fromMetadata([entry], source).listed()[0] as { value: Client }).value;
}

export class ClientsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientsFileError';
  }
}

const CLIENT_ENTRIES: EntryNaming = { member: 'clients', noun: 'client', keyField: 'client_id' };

export class ClientRegistry extends Registry<Client> {
  #inUse: { readonly from: object; readonly clients: readonly Client[] } | undefined;

  /** `documents`: the metadata each client was read from, in the same order. */
  constructor(clients: readonly Client[], documents: readonly unknown[] = []) {
    super(clients.map((c, i): FileEntry<Client> => [c.clientId, c, documents[i]]));
  }

  /** The client registered under exactly this id; a disabled one is unknown here, as everywhere. */
  get(clientId: string): Client | undefined {
    const client = this.entry(clientId);
    return client?.disabled ? undefined : client;
  }

  /** The clients in use (not disabled); worked out once per change of the registry (CORS asks on every preflight). */
  all(): Client[] {
    const current = this.current;
    if (this.#inUse?.from !== current) this.#inUse = { from: current, clients: this.entries().filter((client) => !client.disabled) };
    return [...this.#inUse.clients];
  }

  /** Validates metadata; throws ClientsFileError with one line per problem, naming the client and the field. */
  static fromMetadata(entries: readonly unknown[], source = 'clients'): ClientRegistry {
    const { parsed, problems } = parseEntries(entries, ClientSchema, CLIENT_ENTRIES, source);
    const clients: Client[] = [];
    const documents: unknown[] = [];
    for (const { name, value, document } of parsed) {
      if (clients.some((c) => c.clientId === value.client_id)) problems.push(`${source}: ${name}: client_id: registered twice`);
      else if (value.grant_types.includes('client_credentials') && value.client_id.startsWith(FEDERATED_PREFIX))
        problems.push(
          `${source}: ${name}: client_id: a client_credentials client's id is its tokens' sub, and ${FEDERATED_PREFIX_RESERVED}`,
        );
      else {
        clients.push(toClient(value));
        documents.push(document);
      }
    }
    if (problems.length > 0) throw new ClientsFileError(problems.join('\n'));
    return new ClientRegistry(clients, documents);
  }

  static async load(file: string): Promise<ClientRegistry> {
    return ClientRegistry.fromMetadata(await readEntries(file, CLIENT_ENTRIES, (message) => new ClientsFileError(message)), file);
  }
}

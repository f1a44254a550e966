import { z } from 'zod';
import type { Client } from '../clients/registry.js';
import { AdminApiError } from './admin-client.js';
import { type CliIo, listField } from './command.js';

/**
 * What `clients list` prints of a client, the same line whether the client comes from
 * CLIENTS_FILE (a validated Client) or from the admin API (RFC 7591 metadata, read with
 * CLIENTS_FILE's defaults); and the secret line `clients add` and `rotate-secret` print once.
 */

export interface ClientLine {
  readonly clientId: string;
  readonly authMethod: string;
  /** A private_key_jwt client's keys: the kids of its JWK Set (`#n` for one without), or its jwks_uri. */
  readonly keys?: { readonly kids: readonly string[] } | { readonly jwksUri: string } | undefined;
  readonly signingAlg?: string | undefined;
  readonly grants: readonly string[];
  readonly scope: readonly string[];
  readonly responseTypes: readonly string[];
  readonly redirectUris: readonly string[];
  readonly introspectAllTokens: boolean;
  readonly postLogoutRedirectUris: readonly string[];
  readonly idTokenAlg?: string | undefined;
  readonly defaultMaxAge?: number | undefined;
  readonly requireAuthTime: boolean;
  readonly name?: string | undefined;
}

const kidsOf = (keys: readonly { kid?: string | undefined }[]) => keys.map((key, index) => key.kid ?? `#${index + 1}`);

export function lineOfClient(client: Client): ClientLine {
  const { keys } = client;
  return {
    clientId: client.clientId,
    authMethod: client.authMethod,
    keys: keys === undefined ? undefined : 'jwksUri' in keys ? { jwksUri: keys.jwksUri } : { kids: kidsOf(keys.jwks.keys) },
    signingAlg: client.assertionSigningAlg,
    grants: [...client.grantTypes],
    scope: client.scope,
    responseTypes: [...client.responseTypes],
    redirectUris: client.redirectUris,
    introspectAllTokens: client.introspectAllTokens,
    postLogoutRedirectUris: client.postLogoutRedirectUris ?? [],
    idTokenAlg: client.idTokenSignedResponseAlg,
    defaultMaxAge: client.defaultMaxAge,
    requireAuthTime: client.requireAuthTime === true,
    name: client.clientName,
  };
}

/** A client as the admin API answers it: RFC 7591 metadata, the defaults those of CLIENTS_FILE; other members are not shown. */
const ClientMetadata = z
  .object({
    client_id: z.string(),
    client_name: z.string().optional(),
    token_endpoint_auth_method: z.string().default('client_secret_basic'),
    jwks: z.object({ keys: z.array(z.object({ kid: z.string().optional() }).loose()) }).optional(),
    jwks_uri: z.string().optional(),
    token_endpoint_auth_signing_alg: z.string().optional(),
    grant_types: z.array(z.string()).default(['authorization_code']),
    response_types: z.array(z.string()).optional(),
    scope: z.string().default(''),
    redirect_uris: z.array(z.string()).default([]),
    introspect_all_tokens: z.boolean().default(false),
    post_logout_redirect_uris: z.array(z.string()).default([]),
    id_token_signed_response_alg: z.string().optional(),
    default_max_age: z.number().optional(),
    require_auth_time: z.boolean().default(false),
    source: z.string().optional(),
    disabled: z.boolean().default(false),
  })
  .loose();

export type RemoteClient = z.output<typeof ClientMetadata>;

export function remoteClient(item: unknown): RemoteClient {
  const parsed = ClientMetadata.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AdminApiError(`the admin API answered a client that is not client metadata (${issue?.path.join('.')}: ${issue?.message})`);
  }
  return parsed.data;
}

export function lineOfMetadata(c: RemoteClient): ClientLine {
  const withKeys = c.token_endpoint_auth_method === 'private_key_jwt';
  return {
    clientId: c.client_id,
    authMethod: c.token_endpoint_auth_method,
    keys: !withKeys ? undefined : c.jwks_uri !== undefined ? { jwksUri: c.jwks_uri } : c.jwks ? { kids: kidsOf(c.jwks.keys) } : undefined,
    signingAlg: c.token_endpoint_auth_signing_alg,
    grants: c.grant_types,
    scope: c.scope.split(' ').filter((token) => token !== ''),
    responseTypes: c.response_types ?? (c.grant_types.includes('authorization_code') ? ['code'] : []),
    redirectUris: c.redirect_uris,
    introspectAllTokens: c.introspect_all_tokens,
    postLogoutRedirectUris: c.post_logout_redirect_uris,
    idTokenAlg: c.id_token_signed_response_alg,
    defaultMaxAge: c.default_max_age,
    requireAuthTime: c.require_auth_time,
    name: c.client_name,
  };
}

/** `web  auth=client_secret_basic  grants=authorization_code  scope="openid profile"  …`; values with spaces quoted. */
export function describeClient(client: ClientLine): string {
  const { keys } = client;
  return [
    listField(undefined, client.clientId),
    listField('auth', client.authMethod),
    ...(keys ? ['jwksUri' in keys ? listField('jwks_uri', keys.jwksUri) : listField('jwks', keys.kids.join(','))] : []),
    ...(client.signingAlg ? [listField('signing_alg', client.signingAlg)] : []),
    listField('grants', client.grants.join(',')),
    listField('scope', client.scope.join(' ')),
    ...(client.responseTypes.length > 0 ? [listField('response_types', client.responseTypes.join(','))] : []),
    ...(client.redirectUris.length > 0 ? [listField('redirect_uris', client.redirectUris.join(' '))] : []),
    ...(client.introspectAllTokens ? ['introspect_all_tokens'] : []),
    ...(client.postLogoutRedirectUris.length > 0 ? [listField('post_logout_redirect_uris', client.postLogoutRedirectUris.join(' '))] : []),
    ...(client.idTokenAlg ? [listField('id_token_alg', client.idTokenAlg)] : []),
    ...(client.defaultMaxAge !== undefined ? [listField('default_max_age', String(client.defaultMaxAge))] : []),
    ...(client.requireAuthTime ? ['require_auth_time'] : []),
    ...(client.name ? [listField('name', client.name)] : []),
  ].join('  ');
}

/** The secret, once: it is never stored (only its SHA-256 digest is) and cannot be shown again. */
export function printSecret(io: CliIo, secret: string): void {
  io.stdout.write(`client_secret: ${secret}\n(shown once: only its hash is stored)\n`);
}

import { randomBytes } from 'node:crypto';
import type { DynamicGrantType } from './registration-metadata.js';
import type { ClientRegistrationRecord } from '../store/types.js';
import type { RegisteredMetadata } from './registration-metadata.js';
import { type Client, clientFromMetadata } from './registry.js';

/**
 * A dynamically registered client: its id, the Client the rest of the server sees, and
 * the client information response (RFC 7591 §3.2.1, RFC 7592 §3).
 */

/** `dyn_` and 128 random bits: ours alone, so an id can never be chosen to match another client or a user. */
const DYNAMIC_CLIENT_ID = /^dyn_[A-Za-z0-9_-]{22}$/;

export function newDynamicClientId(): string {
  return `dyn_${randomBytes(16).toString('base64url')}`;
}

/** Whether `clientId` has the form of the ids we generate: anything else is never looked up in the store. */
export function isDynamicClientId(clientId: string): boolean {
  return DYNAMIC_CLIENT_ID.test(clientId);
}

/**
 * The Client of a stored registration, built under the same rules as CLIENTS_FILE. The
 * grants are those the operator allows now (DYNAMIC_CLIENT_GRANTS may have narrowed since
 * the registration). Throws ClientsFileError when the rules refuse it.
 */
export function clientOf(record: ClientRegistrationRecord, allowedGrants: readonly DynamicGrantType[]): Client {
  const metadata = record.metadata as unknown as RegisteredMetadata;
  const grantTypes = metadata.grant_types.filter((grant) => allowedGrants.includes(grant));
  const client = clientFromMetadata(registeredClientMetadata(record, grantTypes), 'registration');
  return Object.freeze({ ...client, dynamicallyRegistered: true as const });
}

/** A registration's metadata in the form of CLIENTS_FILE (its secret's digest included), with these grants. */
export function registeredClientMetadata(record: ClientRegistrationRecord, grantTypes: readonly string[]): Record<string, unknown> {
  const metadata = record.metadata as unknown as RegisteredMetadata;
  return {
    client_id: record.clientId,
    ...(metadata.client_name === undefined ? {} : { client_name: metadata.client_name }),
    ...(metadata.client_uri === undefined ? {} : { client_uri: metadata.client_uri }),
    ...(metadata.logo_uri === undefined ? {} : { logo_uri: metadata.logo_uri }),
    ...(record.clientSecretHash === undefined ? {} : { client_secret_hash: record.clientSecretHash }),
    redirect_uris: metadata.redirect_uris,
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? metadata.response_types : [],
    scope: metadata.scope ?? '',
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
    ...(metadata.dpop_bound_access_tokens === true ? { dpop_bound_access_tokens: true } : {}),
    ...(metadata.post_logout_redirect_uris === undefined ? {} : { post_logout_redirect_uris: metadata.post_logout_redirect_uris }),
    ...(metadata.id_token_signed_response_alg === undefined ? {} : { id_token_signed_response_alg: metadata.id_token_signed_response_alg }),
    ...(metadata.default_max_age === undefined ? {} : { default_max_age: metadata.default_max_age }),
    ...(metadata.require_auth_time === true ? { require_auth_time: true } : {}),
    ...(metadata.jwks === undefined ? {} : { jwks: metadata.jwks }),
    ...(metadata.jwks_uri === undefined ? {} : { jwks_uri: metadata.jwks_uri }),
    ...(metadata.token_endpoint_auth_signing_alg === undefined
      ? {}
      : { token_endpoint_auth_signing_alg: metadata.token_endpoint_auth_signing_alg }),
  };
}

export interface IssuedCredentials {
  /** Only when just issued (registration), or presented and confirmed (update): the store keeps its digest alone. */
  readonly clientSecret?: string | undefined;
  /** The token just issued or presented (RFC 7592 §3: REQUIRED in every response). */
  readonly registrationAccessToken: string;
  readonly registrationClientUri: string;
}

/**
 * RFC 7591 §3.2.1: the response "contains the client identifier as well as the client
 * secret, if the client is a confidential client" and "all registered metadata about the
 * client, including any fields provisioned by the authorization server itself".
 */
export function clientInformation(record: ClientRegistrationRecord, credentials: IssuedCredentials): Record<string, unknown> {
  return {
    client_id: record.clientId,
    ...(credentials.clientSecret === undefined ? {} : { client_secret: credentials.clientSecret }),
    client_id_issued_at: record.issuedAt,
    // RFC 7591 §3.2.1: "REQUIRED if "client_secret" is issued"; 0: it does not expire.
    ...(record.clientSecretHash === undefined ? {} : { client_secret_expires_at: 0 }),
    registration_access_token: credentials.registrationAccessToken,
    registration_client_uri: credentials.registrationClientUri,
    ...record.metadata,
  };
}

import { OAuthError } from '../errors/index.js';
import { RESPONSE_TYPES } from '../oauth/response-mode.js';
import { type ClientKeysSource, hasPrivateKeyMaterial, type PublicJwks } from './client-jwks.js';
import { originsAllowedBy } from './origins.js';
import { type ClientMetadataPolicy, isHttpsUri, type RegisteredMetadata, validatedClientMetadata } from './registration-metadata.js';
import { type Client, DEVICE_CODE_GRANT, GRANT_TYPES, type GrantTypeName } from './registry.js';
import { OPERATOR_ONLY_GRANT_TYPES } from './token-exchange-policy.js';

/**
 * OAuth Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document-03,
 * "CIMD"): a client whose `client_id` is an https URL publishes its metadata there. This
 * module holds the rules for the URL and for the document; the fetching and caching are in
 * metadata-documents.ts. Such a client is public, or confidential by its keys
 * (`private_key_jwt` with `jwks` or `jwks_uri`, RFC 7523): no secret can be agreed with a
 * client that describes itself.
 */

export class InvalidMetadataDocument extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMetadataDocument';
  }
}

/** Long enough for any real document URL; a longer id is refused before anything is fetched or cached. */
const MAX_CLIENT_ID_URL_LENGTH = 2048;

/** Whether `clientId` is written as an http(s) URL: then it can only name a metadata document. */
export function looksLikeClientIdentifierUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** What makes `clientId` unusable as a Client Identifier URL (CIMD §3), or undefined when it is one. */
export function clientIdentifierUrlProblem(clientId: string, allowHttp: boolean): string | undefined {
  const scheme = clientId.startsWith('https://') ? 'https' : allowHttp && clientId.startsWith('http://') ? 'http' : undefined;
  // CIMD §3: a Client Identifier URL "MUST use the https URL scheme".
  if (scheme === undefined) return 'a Client Identifier URL MUST use the https scheme';
  if (clientId.length > MAX_CLIENT_ID_URL_LENGTH) return `longer than ${MAX_CLIENT_ID_URL_LENGTH} characters`;
  const authorityAndPath = clientId.slice(`${scheme}://`.length);
  const authority = authorityAndPath.split(/[/?#]/, 1)[0] as string;
  // CIMD §3: it "MUST NOT contain a userinfo component", "MUST contain a path component",
  // "MUST NOT contain single-dot or double-dot path components" and "MUST NOT contain a
  // fragment component".
  if (authority.includes('@')) return 'a Client Identifier URL MUST NOT contain a userinfo component';
  if (clientId.includes('#')) return 'a Client Identifier URL MUST NOT contain a fragment component';
  const path = authorityAndPath.slice(authority.length).split('?', 1)[0] as string;
  if (!path.startsWith('/')) return 'a Client Identifier URL MUST contain a path component';
  if (path.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment)))
    return 'a Client Identifier URL MUST NOT contain single-dot or double-dot path components';
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'not a valid URL';
  }
  // The document is fetched from the parsed URL, and its client_id is compared with this
  // string: they must be one and the same, so the id must already be in normal form.
  if (url.href !== clientId) return `not in normal form (it would be fetched as ${url.href})`;
  return undefined;
}

/**
 * The grants a document's client can get under `policy`: the code flow, and refresh tokens
 * where allowed; never client_credentials, as it is public (RFC 6749 §4.4). None when the
 * policy does not allow authorization_code, without which no document is accepted.
 */
export function metadataDocumentGrants(policy: Pick<ClientMetadataPolicy, 'grantTypes'>): GrantTypeName[] {
  return policy.grantTypes.includes('authorization_code') ? policy.grantTypes.filter((grant) => grant !== 'client_credentials') : [];
}

/** The methods a document's client may authenticate with: none (public), or its keys. */
const DOCUMENT_AUTH_METHODS: readonly unknown[] = ['none', 'private_key_jwt'];

const authMethodOf = (doc: Record<string, unknown>): unknown => doc.token_endpoint_auth_method ?? 'none';

/** What CIMD §4.1 forbids in a document, beyond the rules of every self-asserted client. */
function documentProblems(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  // CIMD §4.1: "the client_secret and client_secret_expires_at properties MUST NOT be used".
  if (doc.client_secret !== undefined) problems.push('client_secret: MUST NOT be used in a metadata document');
  if (doc.client_secret_expires_at !== undefined) problems.push('client_secret_expires_at: MUST NOT be used in a metadata document');
  // CIMD §4.1: "the token_endpoint_auth_method property MUST NOT include client_secret_post,
  // client_secret_basic, client_secret_jwt, or any other method based around a shared
  // symmetric secret". Absent means none: RFC 7591's default (client_secret_basic) cannot apply.
  if (!DOCUMENT_AUTH_METHODS.includes(authMethodOf(doc)))
    problems.push('token_endpoint_auth_method: must be "none" or "private_key_jwt": a metadata document cannot hold a shared secret');
  // CIMD §4.1: "private key material MUST NOT be included in the Client ID Metadata Document".
  if (hasPrivateKeyMaterial(doc.jwks)) problems.push('jwks: private key material MUST NOT be included');
  return problems;
}

/** Of a list of values, those in `known`; anything that is not a list is left to the validation to refuse. */
function onlyKnown(values: unknown, known: readonly string[]): unknown {
  return Array.isArray(values) ? values.filter((value) => known.includes(value)) : values;
}

/**
 * The document as the metadata of a self-asserted client. One document serves every
 * authorization server the client meets, so what is meant for others is left out rather than
 * refused: grant and response types this server does not implement at all, the device grant
 * unless DYNAMIC_CLIENT_GRANTS offers it (an extra beside the code flow such a client must
 * have: VS Code's document lists it), and a client_uri or logo_uri we would not show. What
 * this server does implement goes through the policy like a registration's.
 */
function asClientMetadata(doc: Record<string, unknown>, policy: ClientMetadataPolicy): Record<string, unknown> {
  const shown = (value: unknown) => (typeof value === 'string' && isHttpsUri(value) ? value : undefined);
  const withKeys = authMethodOf(doc) === 'private_key_jwt';
  // A public client's keys (for encryption, say) are not ours to use.
  const keys = withKeys ? {} : { jwks: undefined, jwks_uri: undefined, token_endpoint_auth_signing_alg: undefined };
  return {
    ...doc,
    ...keys,
    token_endpoint_auth_method: withKeys ? 'private_key_jwt' : 'none',
    grant_types: onlyKnown(
      doc.grant_types,
      GRANT_TYPES.filter(
        (type) =>
          !OPERATOR_ONLY_GRANT_TYPES.includes(type) && (type !== DEVICE_CODE_GRANT || policy.grantTypes.includes(DEVICE_CODE_GRANT)),
      ),
    ),
    response_types: onlyKnown(doc.response_types, RESPONSE_TYPES),
    client_uri: shown(doc.client_uri),
    logo_uri: shown(doc.logo_uri),
  };
}

/** The keys of a private_key_jwt document's client (validated: one of jwks and jwks_uri). */
function keysOf(metadata: RegisteredMetadata): Pick<Client, 'keys' | 'assertionSigningAlg'> {
  const keys: ClientKeysSource = metadata.jwks_uri === undefined ? { jwks: metadata.jwks as PublicJwks } : { jwksUri: metadata.jwks_uri };
  return { keys, ...(metadata.token_endpoint_auth_signing_alg ? { assertionSigningAlg: metadata.token_endpoint_auth_signing_alg } : {}) };
}

/**
 * The client a fetched document describes, or InvalidMetadataDocument saying what is
 * wrong. `clientId` is the URL the document was fetched from. The metadata goes through the
 * same validation as a registration request, under the same policy (DYNAMIC_CLIENT_GRANTS,
 * the scopes resources offer), whether or not registration is on. Other properties are
 * allowed and ignored (CIMD §4: the document "MAY define additional properties"), so nothing
 * the operator grants in CLIENTS_FILE (introspection rights, extra origins) can be claimed.
 */
export function clientFromMetadataDocument(clientId: string, body: unknown, policy: ClientMetadataPolicy): Client {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidMetadataDocument('the document is not a JSON object');
  // CIMD §4: the document "MUST contain a client_id property whose value MUST match the
  // Client Identifier URL, which MUST also match the URL that the authorization server used
  // to fetch the document; comparisons MUST be made using simple string comparison".
  const doc = body as Record<string, unknown>;
  if (doc.client_id !== clientId) {
    throw new InvalidMetadataDocument(
      typeof doc.client_id === 'string' ? 'its client_id is not the URL it was fetched from' : 'client_id is missing or not a string',
    );
  }
  const problems = documentProblems(doc);
  if (problems.length > 0) throw new InvalidMetadataDocument(problems.join('; '));
  let metadata: RegisteredMetadata;
  try {
    metadata = validatedClientMetadata(asClientMetadata(doc, policy), policy);
  } catch (err) {
    if (err instanceof OAuthError) throw new InvalidMetadataDocument(err.description);
    throw err;
  }
  // The client comes by way of the authorization endpoint: the code flow is what it is for.
  if (!metadata.grant_types.includes('authorization_code'))
    throw new InvalidMetadataDocument('grant_types: must include authorization_code');
  if (metadata.grant_types.includes('client_credentials'))
    throw new InvalidMetadataDocument('grant_types: client_credentials is not offered to metadata-document clients');
  const redirectUris = Object.freeze([...metadata.redirect_uris]);
  const withKeys = metadata.token_endpoint_auth_method === 'private_key_jwt';
  return Object.freeze({
    clientId,
    clientName: metadata.client_name,
    clientUri: metadata.client_uri,
    logoUri: metadata.logo_uri,
    secretDigest: undefined,
    redirectUris,
    grantTypes: new Set<GrantTypeName>(metadata.grant_types),
    responseTypes: new Set(metadata.response_types),
    // Without `scope`, the client may ask for what the requested resources offer (resource.ts).
    scope: Object.freeze(metadata.scope === undefined ? [] : metadata.scope.split(' ')),
    authMethod: withKeys ? 'private_key_jwt' : 'none',
    ...(withKeys ? keysOf(metadata) : {}),
    introspectAllTokens: false,
    ...(metadata.post_logout_redirect_uris ? { postLogoutRedirectUris: Object.freeze([...metadata.post_logout_redirect_uris]) } : {}),
    ...(metadata.id_token_signed_response_alg ? { idTokenSignedResponseAlg: metadata.id_token_signed_response_alg } : {}),
    ...(metadata.default_max_age === undefined ? {} : { defaultMaxAge: metadata.default_max_age }),
    ...(metadata.require_auth_time ? { requireAuthTime: true as const } : {}),
    ...(metadata.dpop_bound_access_tokens ? { dpopBoundAccessTokens: true as const } : {}),
    corsOrigins: originsAllowedBy({ isPublic: !withKeys, redirectUris, allowedOrigins: [] }),
    fromMetadataDocument: true,
  });
}

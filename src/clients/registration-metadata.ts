import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import { z } from 'zod';
import { InvalidClientMetadata, InvalidRedirectUri } from '../errors/index.js';
import { parseScope, scopeOutside } from '../oauth/scope.js';
import { DEFAULT_MAX_AGE_PROBLEM, idTokenAlgorithmProblem, isDefaultMaxAge } from './openid-metadata.js';
import { type ApplicationType, checkPostLogoutRedirectUris, checkRedirectUris, MAX_REDIRECT_URI_LENGTH } from './registration-redirects.js';
import { AUTH_METHODS, type ClientAuthMethod, DEVICE_CODE_GRANT } from './registry.js';
import { CLIENT_ASSERTION_ALGORITHMS, type ClientAssertionAlgorithm } from '../oauth/client-assertion.js';
import { clientJwksProblem, type PublicJwks } from './client-jwks.js';

/** The grants a dynamically registered client may get; `password` and `implicit` never (RFC 9700 §2.4, §2.1.2). */
export const DYNAMIC_GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT] as const;
export type DynamicGrantType = (typeof DYNAMIC_GRANT_TYPES)[number];

/**
 * The client metadata (RFC 7591 §2) of a client that describes itself, checked against what
 * this server lets such a client have: a registration request (registrations.ts) and a
 * Client ID Metadata Document (metadata-document.ts) go through the same rules, as one is
 * as self-asserted as the other. Pure: the policy is passed in.
 */

/** What a registered client holds: the fields we understand, defaults applied (RFC 7591 §3.2.1 returns them all). */
export interface RegisteredMetadata {
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method: ClientAuthMethod;
  readonly grant_types: readonly DynamicGrantType[];
  readonly response_types: readonly 'code'[];
  readonly application_type: ApplicationType;
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly scope?: string;
  readonly software_id?: string;
  readonly software_version?: string;
  /** RFC 9449 §5.2; kept only when true. */
  readonly dpop_bound_access_tokens?: true;
  /** OpenID Connect (openid-metadata.ts): kept when sent; require_auth_time only when true. */
  readonly post_logout_redirect_uris?: readonly string[];
  readonly id_token_signed_response_alg?: SigningAlgorithm;
  readonly default_max_age?: number;
  readonly require_auth_time?: true;
  /** private_key_jwt (RFC 7523 §2.2): the client's public keys, one or the other, and optionally its one algorithm. */
  readonly jwks?: PublicJwks;
  readonly jwks_uri?: string;
  readonly token_endpoint_auth_signing_alg?: ClientAssertionAlgorithm;
}

/** What a client describing itself may have, whether it registers or publishes a metadata document. */
export interface ClientMetadataPolicy {
  /** DYNAMIC_CLIENT_GRANTS. */
  readonly grantTypes: readonly DynamicGrantType[];
  /** The scopes registered resources accept: the most such a client may have (the rest is the operator's, for CLIENTS_FILE). */
  offeredScopes(): readonly string[];
  /** CLIENT_ID_METADATA_ALLOW_INSECURE: a jwks_uri may be http:// (development and tests). */
  readonly allowHttpJwksUri?: boolean;
}

/** An https URI without fragment, as `client_uri` and `logo_uri` must be. */
export function isHttpsUri(value: string): boolean {
  return value.length <= MAX_REDIRECT_URI_LENGTH && URL.canParse(value) && new URL(value).protocol === 'https:' && !value.includes('#');
}

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`)
    .refine((value) => !/\p{Cc}/u.test(value), `${field} must not contain control characters`);

const httpsUri = (field: string) =>
  text(field, MAX_REDIRECT_URI_LENGTH).refine(isHttpsUri, `${field} must be an https URI without fragment`);

const strings = (field: string) =>
  z.array(z.string({ error: `${field} must be an array of strings` }), { error: `${field} must be an array of strings` });

/** The fields we understand; RFC 7591 §2: "The authorization server MUST ignore any client metadata sent by the client that it does not understand". */
const RequestSchema = z.object({
  redirect_uris: strings('redirect_uris').max(20, 'redirect_uris must have at most 20 entries').optional(),
  token_endpoint_auth_method: z.string({ error: 'token_endpoint_auth_method must be a string' }).optional(),
  grant_types: strings('grant_types').min(1, 'grant_types must not be empty').optional(),
  // Empty is a machine client's honest answer (client_credentials only), and what we return for one.
  response_types: strings('response_types').optional(),
  application_type: z.enum(['web', 'native'], { error: 'application_type must be web or native' }).optional(),
  client_name: text('client_name', 200).optional(),
  client_uri: httpsUri('client_uri').optional(),
  logo_uri: httpsUri('logo_uri').optional(),
  scope: z.string({ error: 'scope must be a string' }).max(1000, 'scope must be at most 1000 characters').optional(),
  software_id: text('software_id', 200).optional(),
  software_version: text('software_version', 200).optional(),
  dpop_bound_access_tokens: z.boolean({ error: 'dpop_bound_access_tokens must be a boolean' }).optional(),
  post_logout_redirect_uris: strings('post_logout_redirect_uris')
    .max(20, 'post_logout_redirect_uris must have at most 20 entries')
    .optional(),
  id_token_signed_response_alg: z
    .string({ error: 'id_token_signed_response_alg must be a string' })
    .superRefine((alg, ctx) => {
      const problem = idTokenAlgorithmProblem(alg);
      if (problem) ctx.addIssue({ code: 'custom', message: `id_token_signed_response_alg: ${problem}` });
    })
    .optional(),
  default_max_age: z
    .number({ error: `default_max_age ${DEFAULT_MAX_AGE_PROBLEM}` })
    .refine(isDefaultMaxAge, `default_max_age ${DEFAULT_MAX_AGE_PROBLEM}`)
    .optional(),
  require_auth_time: z.boolean({ error: 'require_auth_time must be a boolean' }).optional(),
  jwks: z.unknown().optional(),
  jwks_uri: text('jwks_uri', MAX_REDIRECT_URI_LENGTH).optional(),
  token_endpoint_auth_signing_alg: z
    .enum(CLIENT_ASSERTION_ALGORITHMS, {
      error: `token_endpoint_auth_signing_alg must be one of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`,
    })
    .optional(),
});

type RequestMetadata = z.output<typeof RequestSchema>;

/**
 * The keys of a private_key_jwt client, validated as CLIENTS_FILE validates them; none for
 * another method (they would authenticate nothing). RFC 7591 §2: "The "jwks_uri" and "jwks"
 * parameters MUST NOT both be present in the same request or response."
 */
function checkKeys(m: RequestMetadata, authMethod: string, policy: ClientMetadataPolicy): Partial<RegisteredMetadata> {
  const fields = (['jwks', 'jwks_uri', 'token_endpoint_auth_signing_alg'] as const).filter((field) => m[field] !== undefined);
  if (authMethod !== 'private_key_jwt') {
    if (fields.length > 0) throw new InvalidClientMetadata(`${fields[0]}: only with token_endpoint_auth_method private_key_jwt`);
    return {};
  }
  if ((m.jwks === undefined) === (m.jwks_uri === undefined))
    throw new InvalidClientMetadata('private_key_jwt needs the client public keys: jwks or jwks_uri, not both');
  const problem = m.jwks === undefined ? undefined : clientJwksProblem(m.jwks);
  if (problem) throw new InvalidClientMetadata(`jwks: ${problem}`);
  const uri = m.jwks_uri;
  // https, as every URL we fetch for a client (http:// only with CLIENT_ID_METADATA_ALLOW_INSECURE).
  const scheme = uri !== undefined && URL.canParse(uri) ? new URL(uri).protocol : undefined;
  if (uri !== undefined && (uri.includes('#') || !(scheme === 'https:' || (scheme === 'http:' && policy.allowHttpJwksUri === true))))
    throw new InvalidClientMetadata('jwks_uri must be an https URI without fragment');
  return {
    ...(m.jwks === undefined ? {} : { jwks: m.jwks as PublicJwks }),
    ...(uri === undefined ? {} : { jwks_uri: uri }),
    ...(m.token_endpoint_auth_signing_alg === undefined ? {} : { token_endpoint_auth_signing_alg: m.token_endpoint_auth_signing_alg }),
  };
}

/** JSON `null` and `""` read as an omitted field: client libraries write both for "not set". */
function withoutEmptyValues(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null && value !== ''));
}

function checkGrantTypes(requested: readonly string[], policy: ClientMetadataPolicy): DynamicGrantType[] {
  for (const grant of requested) {
    if (!(policy.grantTypes as readonly string[]).includes(grant))
      throw new InvalidClientMetadata(`grant_types: ${grant} is not available to dynamically registered clients`);
  }
  return [...new Set(requested)] as DynamicGrantType[];
}

/**
 * RFC 7591 §2.1: "a "grant_types" value that includes "authorization_code" implies a
 * "response_types" value that includes "code"", and the server "SHOULD take steps to ensure
 * that a client cannot register itself into an inconsistent state". We offer no other type.
 */
function checkResponseTypes(requested: readonly string[] | undefined, grantTypes: readonly DynamicGrantType[]): 'code'[] {
  const usesCode = grantTypes.includes('authorization_code');
  const types = requested ?? (usesCode ? ['code'] : []);
  if (types.some((type) => type !== 'code')) throw new InvalidClientMetadata('response_types: only code is available');
  if (usesCode && types.length === 0)
    throw new InvalidClientMetadata('response_types: the authorization_code grant type needs code (RFC 7591 section 2.1)');
  if (!usesCode && types.length > 0)
    throw new InvalidClientMetadata('response_types: code needs the authorization_code grant type (RFC 7591 section 2.1)');
  return usesCode ? ['code'] : [];
}

function checkScope(requested: string | undefined, policy: ClientMetadataPolicy): string | undefined {
  if (requested === undefined) return undefined;
  const tokens = parseScope(requested);
  if (!tokens) throw new InvalidClientMetadata('scope must be space-separated scope tokens (RFC 6749 section 3.3)');
  const outside = scopeOutside(tokens, policy.offeredScopes());
  if (outside.length > 0) throw new InvalidClientMetadata(`scope: not offered by any registered resource: ${outside.join(' ')}`);
  return tokens.join(' ');
}

/**
 * Validates the metadata of a client describing itself (a registration request body, a
 * metadata document). Throws InvalidRedirectUri for a bad or missing redirect URI and
 * InvalidClientMetadata for any other field (RFC 7591 §3.2.2).
 */
export function validatedClientMetadata(body: unknown, policy: ClientMetadataPolicy): RegisteredMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidClientMetadata('the request body must be a JSON object of client metadata');
  const parsed = RequestSchema.safeParse(withoutEmptyValues(body as Record<string, unknown>));
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const field = String(issue.path[0]);
    throw field === 'redirect_uris' ? new InvalidRedirectUri(issue.message) : new InvalidClientMetadata(issue.message);
  }
  const m = parsed.data;
  // RFC 7591 §2: token_endpoint_auth_method "If unspecified or omitted, the default is "client_secret_basic""; grant_types "the default is "authorization_code"".
  const authMethod = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(authMethod))
    throw new InvalidClientMetadata(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  const keys = checkKeys(m, authMethod, policy);
  const grantTypes = checkGrantTypes(m.grant_types ?? ['authorization_code'], policy);
  const responseTypes = checkResponseTypes(m.response_types, grantTypes);
  // RFC 6749 §4.4: "The client credentials grant type MUST only be used by confidential clients."
  if (authMethod === 'none' && grantTypes.includes('client_credentials'))
    throw new InvalidClientMetadata('grant_types: client_credentials needs a confidential client (token_endpoint_auth_method is none)');
  const redirectUris = m.redirect_uris ?? [];
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0)
    throw new InvalidRedirectUri('redirect_uris is required with the authorization_code grant type');
  const applicationType = checkRedirectUris(redirectUris, m.application_type);
  const postLogoutRedirectUris = [...new Set(m.post_logout_redirect_uris ?? [])];
  checkPostLogoutRedirectUris(postLogoutRedirectUris, applicationType);
  const scope = checkScope(m.scope, policy);
  return {
    redirect_uris: [...new Set(redirectUris)],
    token_endpoint_auth_method: authMethod as ClientAuthMethod,
    grant_types: grantTypes,
    response_types: responseTypes,
    application_type: applicationType,
    ...(m.client_name === undefined ? {} : { client_name: m.client_name }),
    ...(m.client_uri === undefined ? {} : { client_uri: m.client_uri }),
    ...(m.logo_uri === undefined ? {} : { logo_uri: m.logo_uri }),
    ...(scope === undefined ? {} : { scope }),
    ...(m.software_id === undefined ? {} : { software_id: m.software_id }),
    ...(m.software_version === undefined ? {} : { software_version: m.software_version }),
    ...(m.dpop_bound_access_tokens === true ? { dpop_bound_access_tokens: true as const } : {}),
    ...(postLogoutRedirectUris.length > 0 ? { post_logout_redirect_uris: postLogoutRedirectUris } : {}),
    ...(m.id_token_signed_response_alg === undefined
      ? {}
      : { id_token_signed_response_alg: m.id_token_signed_response_alg as SigningAlgorithm }),
    ...(m.default_max_age === undefined ? {} : { default_max_age: m.default_max_age }),
    ...(m.require_auth_time === true ? { require_auth_time: true as const } : {}),
    ...keys,
  };
}

import { z } from 'zod';
import { parseScope } from '../oauth/scope.js';
import { originsAllowedBy } from './origins.js';
import { type Client, type GrantTypeName, redirectUri } from './registry.js';

/**
 * OAuth Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document-03,
 * "CIMD"): a client whose `client_id` is an https URL publishes its metadata there. This
 * module holds the rules for the URL and for the document; the fetching and caching are in
 * metadata-documents.ts. Such a client is always public here: no secret can be agreed with
 * a client that registers itself, and this server implements no key-based client
 * authentication (private_key_jwt).
 */

export class InvalidMetadataDocument extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMetadataDocument';
  }
}

/** Long enough for any real document URL; a longer id is refused before anything is fetched or cached. */
const MAX_CLIENT_ID_URL_LENGTH = 2048;

/** The grant types a self-registered public client may use here (OAuth 2.1: no implicit, no password). */
const GRANTED_TYPES: ReadonlySet<string> = new Set<GrantTypeName>(['authorization_code', 'refresh_token']);
/** Schemes that must never receive an authorization response (CIMD §8.6: "only fetch or parse URLs with known and supported URI schemes"). */
const FORBIDDEN_REDIRECT_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:', 'ws:', 'wss:']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

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

const metadataDocumentRedirectUri = redirectUri.superRefine((value, ctx) => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url) return; // reported by redirectUri
  if (FORBIDDEN_REDIRECT_SCHEMES.has(url.protocol)) ctx.addIssue({ code: 'custom', message: `the ${url.protocol} scheme is not allowed` });
  // RFC 8252 §8.3 and RFC 9700 §2.6: plain http only to the loopback interface.
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.host.replace(/:\d+$/, '')))
    ctx.addIssue({ code: 'custom', message: 'http redirect URIs are accepted only for loopback (127.0.0.1, [::1], localhost)' });
});

const httpsUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:' && !value.includes('#'));

/** JWK members that carry private or symmetric key material. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function hasPrivateKeyMaterial(jwks: unknown): boolean {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) && keys.some((key) => typeof key === 'object' && key !== null && PRIVATE_JWK_MEMBERS.some((m) => m in key));
}

/**
 * The document's metadata (RFC 7591 §2 names). Other properties are allowed and ignored
 * (CIMD §4: the document "MAY define additional properties"), so nothing the operator
 * grants in CLIENTS_FILE (introspection rights, extra origins) can be claimed here.
 */
const MetadataDocumentSchema = z
  .object({
    client_id: z.string(),
    client_name: z.string().min(1).max(200).optional(),
    // A client_uri or logo_uri we would not show (not https) is left out, not a reason to refuse the client.
    client_uri: httpsUrl.optional().catch(undefined),
    logo_uri: httpsUrl.optional().catch(undefined),
    redirect_uris: z.array(metadataDocumentRedirectUri).min(1, 'at least one redirect URI is required'),
    // RFC 7591 §2: grant_types defaults to authorization_code, response_types to code.
    grant_types: z.array(z.string()).default(['authorization_code']),
    response_types: z.array(z.string()).default(['code']),
    scope: z
      .string()
      .refine((s) => s === '' || parseScope(s) !== undefined, 'must be space-separated scope tokens (RFC 6749 §3.3)')
      .optional(),
    // RFC 7591's default (client_secret_basic) cannot apply: CIMD §4.1 forbids shared secrets.
    token_endpoint_auth_method: z.string().default('none'),
    client_secret: z.unknown().optional(),
    client_secret_expires_at: z.unknown().optional(),
    jwks: z.unknown().optional(),
  })
  .superRefine((doc, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    // CIMD §4.1: "the client_secret and client_secret_expires_at properties MUST NOT be used".
    if (doc.client_secret !== undefined) problem('client_secret', 'MUST NOT be used in a metadata document');
    if (doc.client_secret_expires_at !== undefined) problem('client_secret_expires_at', 'MUST NOT be used in a metadata document');
    // CIMD §4.1: "the token_endpoint_auth_method property MUST NOT include client_secret_post,
    // client_secret_basic, client_secret_jwt, or any other method based around a shared
    // symmetric secret"; and this server implements no key-based method.
    if (doc.token_endpoint_auth_method !== 'none')
      problem('token_endpoint_auth_method', `must be "none": only public clients are accepted from metadata documents`);
    // CIMD §4.1: "private key material MUST NOT be included in the Client ID Metadata Document".
    if (hasPrivateKeyMaterial(doc.jwks)) problem('jwks', 'private key material MUST NOT be included');
    if (!doc.grant_types.includes('authorization_code')) problem('grant_types', 'must include authorization_code');
    if (!doc.response_types.includes('code')) problem('response_types', 'must include code');
  });

/**
 * The client a fetched document describes, or InvalidMetadataDocument saying what is
 * wrong. `clientId` is the URL the document was fetched from.
 */
export function clientFromMetadataDocument(clientId: string, body: unknown): Client {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidMetadataDocument('the document is not a JSON object');
  // CIMD §4: the document "MUST contain a client_id property whose value MUST match the
  // Client Identifier URL, which MUST also match the URL that the authorization server used
  // to fetch the document; comparisons MUST be made using simple string comparison".
  const claimed = (body as { client_id?: unknown }).client_id;
  if (claimed !== clientId) {
    throw new InvalidMetadataDocument(
      typeof claimed === 'string' ? 'its client_id is not the URL it was fetched from' : 'client_id is missing or not a string',
    );
  }
  const parsed = MetadataDocumentSchema.safeParse(body);
  if (!parsed.success) {
    throw new InvalidMetadataDocument(parsed.error.issues.map((i) => `${i.path.join('.') || 'document'}: ${i.message}`).join('; '));
  }
  const doc = parsed.data;
  const redirectUris = Object.freeze([...new Set(doc.redirect_uris)]);
  return Object.freeze({
    clientId,
    clientName: doc.client_name,
    clientUri: doc.client_uri,
    logoUri: doc.logo_uri,
    secretDigest: undefined,
    redirectUris,
    // Other grant types a document lists (for other servers) are not granted here.
    grantTypes: new Set(doc.grant_types.filter((g): g is GrantTypeName => GRANTED_TYPES.has(g))),
    responseTypes: new Set(['code'] as const),
    // Without `scope`, the client may ask for what the requested resources offer (resource.ts).
    scope: Object.freeze(doc.scope === undefined || doc.scope === '' ? [] : (parseScope(doc.scope) ?? [])),
    authMethod: 'none',
    introspectAllTokens: false,
    corsOrigins: originsAllowedBy({ isPublic: true, redirectUris, allowedOrigins: [] }),
    fromMetadataDocument: true,
  });
}

import { NATIVE_CLIENT, WEB_CLIENT } from './registration.js';

/**
 * Metadata a client describing itself may not have, and the exact refusal (RFC 7591 §3.2.2):
 * registration answers these (test/suites/registration-metadata.ts), and a metadata document
 * with the same metadata is refused with the same description (clients.metadata-document.test.ts).
 */

export const redirectError = (description: string) => ({ status: 400, error: 'invalid_redirect_uri', description });
export const metadataError = (description: string) => ({ status: 400, error: 'invalid_client_metadata', description });

const SIGNED_BY = 'one of ES256, EdDSA, RS256, PS256';
const MAX_AGE = 'default_max_age must be a whole number of seconds, 0 or more';

/** OpenID Connect client metadata (Registration 1.0 §2, RP-Initiated Logout 1.0 §3.1) refused, and why. */
const OPENID_CONNECT_REFUSALS: readonly [string, unknown, ReturnType<typeof redirectError>][] = [
  [
    'unsigned ID tokens',
    { ...NATIVE_CLIENT, id_token_signed_response_alg: 'none' },
    metadataError(`id_token_signed_response_alg: 'none' is refused: ID tokens are always signed, with ${SIGNED_BY}`),
  ],
  [
    'ID tokens signed with HMAC',
    { ...WEB_CLIENT, id_token_signed_response_alg: 'HS256' },
    metadataError(
      `id_token_signed_response_alg: HS256 (HMAC) is refused: ID tokens are signed with the server's asymmetric keys, ${SIGNED_BY}`,
    ),
  ],
  [
    'an ID token algorithm the server does not sign with',
    { ...NATIVE_CLIENT, id_token_signed_response_alg: 'ES384' },
    metadataError(`id_token_signed_response_alg: must be ${SIGNED_BY}`),
  ],
  [
    'id_token_signed_response_alg not a string',
    { ...NATIVE_CLIENT, id_token_signed_response_alg: 256 },
    metadataError('id_token_signed_response_alg must be a string'),
  ],
  ['a negative default_max_age', { ...NATIVE_CLIENT, default_max_age: -1 }, metadataError(MAX_AGE)],
  ['a fractional default_max_age', { ...NATIVE_CLIENT, default_max_age: 1.5 }, metadataError(MAX_AGE)],
  ['default_max_age as a string', { ...NATIVE_CLIENT, default_max_age: '3600' }, metadataError(MAX_AGE)],
  ['require_auth_time not a boolean', { ...NATIVE_CLIENT, require_auth_time: 'yes' }, metadataError('require_auth_time must be a boolean')],
  [
    'post_logout_redirect_uris not an array',
    { ...NATIVE_CLIENT, post_logout_redirect_uris: 'https://a.example/bye' },
    metadataError('post_logout_redirect_uris must be an array of strings'),
  ],
  [
    'a post-logout redirect URI with a fragment',
    { ...NATIVE_CLIENT, post_logout_redirect_uris: ['https://a.example/bye#x'] },
    metadataError('post_logout_redirect_uris[0]: must not have a fragment (RFC 6749 section 3.1.2)'),
  ],
  [
    'a post-logout redirect URI over http to a non-loopback host',
    { ...NATIVE_CLIENT, post_logout_redirect_uris: ['http://127.0.0.1/bye', 'http://a.example/bye'] },
    metadataError('post_logout_redirect_uris[1]: http is allowed only for a loopback address (127.0.0.1, [::1] or localhost); use https'),
  ],
  [
    'a javascript: post-logout redirect URI',
    { ...NATIVE_CLIENT, post_logout_redirect_uris: ['javascript:alert(1)'] },
    metadataError('post_logout_redirect_uris[0]: the scheme javascript: is not allowed for redirect URIs'),
  ],
  [
    'a loopback post-logout redirect URI for a web client',
    { ...WEB_CLIENT, post_logout_redirect_uris: ['http://127.0.0.1/bye'] },
    metadataError("post_logout_redirect_uris[0]: a web client's post-logout redirect URIs must use https (as its redirect URIs)"),
  ],
  [
    'too many post-logout redirect URIs',
    { ...NATIVE_CLIENT, post_logout_redirect_uris: Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`) },
    metadataError('post_logout_redirect_uris must have at most 20 entries'),
  ],
];

/** Each refused registration and its exact error. */
const KEYED = { ...NATIVE_CLIENT, token_endpoint_auth_method: 'private_key_jwt' };
const EC_KEY = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};
const ONLY_PUBLIC = 'only public keys: private or symmetric key material (d, k, ...) must not be registered';

/** private_key_jwt metadata (RFC 7591 §2 jwks, jwks_uri, token_endpoint_auth_signing_alg) refused, and why. */
const PRIVATE_KEY_JWT_REFUSALS: readonly [string, unknown, ReturnType<typeof redirectError>][] = [
  ['private_key_jwt without keys', KEYED, metadataError('private_key_jwt needs the client public keys: jwks or jwks_uri, not both')],
  [
    'private_key_jwt with jwks and jwks_uri (RFC 7591 §2)',
    { ...KEYED, jwks: { keys: [EC_KEY] }, jwks_uri: 'https://app.example.org/jwks.json' },
    metadataError('private_key_jwt needs the client public keys: jwks or jwks_uri, not both'),
  ],
  ['a private key in jwks', { ...KEYED, jwks: { keys: [{ ...EC_KEY, d: 'private' }] } }, metadataError(`jwks: keys[0]: ${ONLY_PUBLIC}`)],
  [
    'a symmetric key in jwks',
    { ...KEYED, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } },
    metadataError(`jwks: keys[0]: ${ONLY_PUBLIC}`),
  ],
  ['jwks that is not a JWK Set', { ...KEYED, jwks: [EC_KEY] }, metadataError('jwks: must be a JWK Set (an object with a keys array)')],
  [
    'an http jwks_uri',
    { ...KEYED, jwks_uri: 'http://app.example.org/jwks.json' },
    metadataError('jwks_uri must be an https URI without fragment'),
  ],
  [
    'an HMAC signing algorithm',
    { ...KEYED, jwks: { keys: [EC_KEY] }, token_endpoint_auth_signing_alg: 'HS256' },
    metadataError('token_endpoint_auth_signing_alg must be one of ES256, EdDSA, Ed25519, RS256, PS256'),
  ],
  [
    'keys without private_key_jwt',
    { ...WEB_CLIENT, jwks_uri: 'https://app.example.org/jwks.json' },
    metadataError('jwks_uri: only with token_endpoint_auth_method private_key_jwt'),
  ],
];

export const REFUSED_METADATA: readonly [string, unknown, ReturnType<typeof redirectError>][] = [
  ['not an object', [], metadataError('the request body must be a JSON object of client metadata')],
  ['no redirect URI for the code flow', {}, redirectError('redirect_uris is required with the authorization_code grant type')],
  ['redirect_uris not an array', { redirect_uris: 'https://a.example/cb' }, redirectError('redirect_uris must be an array of strings')],
  ['a redirect URI not a string', { redirect_uris: [42] }, redirectError('redirect_uris must be an array of strings')],
  ['a relative redirect URI', { redirect_uris: ['/callback'] }, redirectError('redirect_uris[0]: must be an absolute URI')],
  [
    'javascript:',
    { redirect_uris: ['https://a.example/cb', 'javascript:alert(1)'] },
    redirectError('redirect_uris[1]: the scheme javascript: is not allowed for redirect URIs'),
  ],
  ['data:', { redirect_uris: ['data:text/html,hi'] }, redirectError('redirect_uris[0]: the scheme data: is not allowed for redirect URIs')],
  [
    'file:',
    { redirect_uris: ['file:///etc/passwd'] },
    redirectError('redirect_uris[0]: the scheme file: is not allowed for redirect URIs'),
  ],
  [
    'ftp:',
    { redirect_uris: ['ftp://evil.example/cb'] },
    redirectError('redirect_uris[0]: the scheme ftp: is not allowed for redirect URIs'),
  ],
  [
    'user information before another host',
    { redirect_uris: ['https://good.example@evil.example/cb'] },
    redirectError('redirect_uris[0]: must not contain user information'),
  ],
  [
    'a fragment',
    { redirect_uris: ['https://a.example/cb#x'] },
    redirectError('redirect_uris[0]: must not have a fragment (RFC 6749 section 3.1.2)'),
  ],
  [
    'http to a non-loopback host',
    { redirect_uris: ['http://a.example/cb'] },
    redirectError('redirect_uris[0]: http is allowed only for a loopback address (127.0.0.1, [::1] or localhost); use https'),
  ],
  [
    'http to 127.0.0.2',
    { redirect_uris: ['http://127.0.0.2/cb'] },
    redirectError('redirect_uris[0]: http is allowed only for a loopback address (127.0.0.1, [::1] or localhost); use https'),
  ],
  [
    'user information',
    { redirect_uris: ['http://127.0.0.1:80@evil.example/cb'] },
    redirectError('redirect_uris[0]: must not contain user information'),
  ],
  [
    'a wildcard',
    { redirect_uris: ['https://*.example.org/cb'] },
    redirectError('redirect_uris[0]: wildcards are not supported: redirect URIs are compared exactly'),
  ],
  [
    'a space',
    { redirect_uris: ['https://a.example/c b'] },
    redirectError('redirect_uris[0]: must not contain spaces or control characters'),
  ],
  [
    'a loopback URI for a web client',
    { application_type: 'web', redirect_uris: ['https://a.example/cb', 'http://127.0.0.1/cb'] },
    redirectError(
      "redirect_uris[1]: a web client's redirect URIs must use https (register application_type native for a loopback or custom-scheme URI)",
    ),
  ],
  [
    'a custom scheme for a web client',
    { application_type: 'web', redirect_uris: ['com.example.app:/cb'] },
    redirectError(
      "redirect_uris[0]: a web client's redirect URIs must use https (register application_type native for a loopback or custom-scheme URI)",
    ),
  ],
  [
    'too many redirect URIs',
    { redirect_uris: Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`) },
    redirectError('redirect_uris must have at most 20 entries'),
  ],
  [
    'an unknown application_type',
    { ...NATIVE_CLIENT, application_type: 'desktop' },
    metadataError('application_type must be web or native'),
  ],
  [
    'client_secret_jwt',
    { ...NATIVE_CLIENT, token_endpoint_auth_method: 'client_secret_jwt' },
    metadataError('token_endpoint_auth_method must be one of client_secret_basic, client_secret_post, private_key_jwt, none'),
  ],
  ...PRIVATE_KEY_JWT_REFUSALS,
  [
    'the password grant',
    { ...NATIVE_CLIENT, grant_types: ['authorization_code', 'password'] },
    metadataError('grant_types: password is not available to dynamically registered clients'),
  ],
  [
    'the implicit grant',
    { ...NATIVE_CLIENT, grant_types: ['implicit'] },
    metadataError('grant_types: implicit is not available to dynamically registered clients'),
  ],
  [
    'client_credentials (not in DYNAMIC_CLIENT_GRANTS)',
    { ...WEB_CLIENT, grant_types: ['client_credentials'] },
    metadataError('grant_types: client_credentials is not available to dynamically registered clients'),
  ],
  ['no grant', { ...NATIVE_CLIENT, grant_types: [] }, metadataError('grant_types must not be empty')],
  [
    'an empty response_types with authorization_code',
    { ...NATIVE_CLIENT, response_types: [] },
    metadataError('response_types: the authorization_code grant type needs code (RFC 7591 section 2.1)'),
  ],
  ['response type token', { ...NATIVE_CLIENT, response_types: ['code', 'token'] }, metadataError('response_types: only code is available')],
  [
    'code without authorization_code',
    { ...NATIVE_CLIENT, grant_types: ['refresh_token'] },
    metadataError('response_types: code needs the authorization_code grant type (RFC 7591 section 2.1)'),
  ],
  [
    'a scope no resource offers',
    { ...NATIVE_CLIENT, scope: 'tools admin' },
    metadataError('scope: not offered by any registered resource: admin'),
  ],
  [
    'a malformed scope',
    { ...NATIVE_CLIENT, scope: 'tools  files:read' },
    metadataError('scope must be space-separated scope tokens (RFC 6749 section 3.3)'),
  ],
  ['client_name not a string', { ...NATIVE_CLIENT, client_name: 42 }, metadataError('client_name must be a string')],
  ['a long client_name', { ...NATIVE_CLIENT, client_name: 'x'.repeat(201) }, metadataError('client_name must be at most 200 characters')],
  ['a control character', { ...NATIVE_CLIENT, client_name: 'a\u0007b' }, metadataError('client_name must not contain control characters')],
  [
    'an http logo_uri',
    { ...NATIVE_CLIENT, logo_uri: 'http://a.example/logo.png' },
    metadataError('logo_uri must be an https URI without fragment'),
  ],
  [
    'a javascript client_uri',
    { ...NATIVE_CLIENT, client_uri: 'javascript:alert(1)' },
    metadataError('client_uri must be an https URI without fragment'),
  ],
  ['software_id not a string', { ...NATIVE_CLIENT, software_id: 7 }, metadataError('software_id must be a string')],
  [
    'dpop_bound_access_tokens not a boolean',
    { ...NATIVE_CLIENT, dpop_bound_access_tokens: 'yes' },
    metadataError('dpop_bound_access_tokens must be a boolean'),
  ],
  ...OPENID_CONNECT_REFUSALS,
];

import t, { type Test } from 'tap';
import {
  clientFromMetadataDocument,
  clientIdentifierUrlProblem,
  InvalidMetadataDocument,
  metadataDocumentGrants,
} from '../../src/clients/metadata-document.js';
import type { ClientMetadataPolicy } from '../../src/clients/registration-metadata.js';
import { offeredScope } from '../../src/resources/indicators.js';
import { ResourceRegistry } from '../../src/resources/registry.js';
import { clientMetadataDocument } from '../helpers/metadata-document-fixtures.js';
import { REFUSED_METADATA } from '../helpers/refused-metadata.js';
import { RESOURCES } from '../helpers/resource-fixtures.js';

const ID = 'https://mcp-client.test/oauth/client.json';

/** The policy of the registration tests: the default DYNAMIC_CLIENT_GRANTS, the scopes of RESOURCES. */
const POLICY: ClientMetadataPolicy = {
  grantTypes: ['authorization_code', 'refresh_token'],
  offeredScopes: () => offeredScope(ResourceRegistry.fromEntries(RESOURCES).all()),
};

function refusedWith(t: Test, body: unknown, message: string, clientId = ID, policy = POLICY): void {
  t.throws(() => clientFromMetadataDocument(clientId, body, policy), new InvalidMetadataDocument(message), message);
}

const document = (fields: Record<string, unknown> = {}) => clientMetadataDocument(ID, fields);

t.test('Client Identifier URLs (CIMD §3)', async (t) => {
  const cases: Array<[string, string | undefined]> = [
    [ID, undefined],
    ['https://mcp-client.test:8443/client.json?version=2', undefined],
    ['https://mcp-client.test/', undefined],
    ['http://mcp-client.test/client.json', 'a Client Identifier URL MUST use the https scheme'],
    ['HTTPS://mcp-client.test/client.json', 'a Client Identifier URL MUST use the https scheme'],
    ['https://mcp-client.test', 'a Client Identifier URL MUST contain a path component'],
    ['https://mcp-client.test?x=1', 'a Client Identifier URL MUST contain a path component'],
    ['https://user@mcp-client.test/client.json', 'a Client Identifier URL MUST NOT contain a userinfo component'],
    ['https://user:pw@mcp-client.test/client.json', 'a Client Identifier URL MUST NOT contain a userinfo component'],
    ['https://mcp-client.test/client.json#me', 'a Client Identifier URL MUST NOT contain a fragment component'],
    ['https://mcp-client.test/a/../client.json', 'a Client Identifier URL MUST NOT contain single-dot or double-dot path components'],
    ['https://mcp-client.test/./client.json', 'a Client Identifier URL MUST NOT contain single-dot or double-dot path components'],
    ['https://mcp-client.test/a/%2E%2e/client.json', 'a Client Identifier URL MUST NOT contain single-dot or double-dot path components'],
    ['https://MCP-Client.test/client.json', 'not in normal form (it would be fetched as https://mcp-client.test/client.json)'],
    ['https://mcp-client.test:443/client.json', 'not in normal form (it would be fetched as https://mcp-client.test/client.json)'],
    ['https://mcp-client.test/a b', 'not in normal form (it would be fetched as https://mcp-client.test/a%20b)'],
    ['https://exa mple.test/client.json', 'not a valid URL'],
    [`https://mcp-client.test/${'a'.repeat(2048)}`, 'longer than 2048 characters'],
  ];
  for (const [clientId, problem] of cases) t.equal(clientIdentifierUrlProblem(clientId, false), problem, clientId.slice(0, 80));
  t.equal(clientIdentifierUrlProblem('http://127.0.0.1:8080/client.json', true), undefined, 'http in insecure mode');
});

t.test('a valid document becomes a public client marked as coming from a metadata document', async (t) => {
  const client = clientFromMetadataDocument(ID, document({ scope: 'read write', logo_uri: 'https://mcp-client.test/logo.png' }), POLICY);
  t.same(
    {
      ...client,
      grantTypes: [...client.grantTypes],
      responseTypes: [...client.responseTypes],
      corsOrigins: [...client.corsOrigins],
    },
    {
      clientId: ID,
      clientName: 'Example <MCP> Client',
      clientUri: undefined,
      logoUri: 'https://mcp-client.test/logo.png',
      secretDigest: undefined,
      redirectUris: ['http://127.0.0.1/callback', 'https://mcp-client.test/callback'],
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope: ['read', 'write'],
      authMethod: 'none',
      introspectAllTokens: false,
      corsOrigins: ['http://127.0.0.1', 'https://mcp-client.test'],
      fromMetadataDocument: true,
    },
  );
  t.ok(Object.isFrozen(client));

  const minimal = clientFromMetadataDocument(ID, { client_id: ID, redirect_uris: ['https://mcp-client.test/cb'] }, POLICY);
  t.equal(minimal.authMethod, 'none', 'no token_endpoint_auth_method: public (RFC 7591 client_secret_basic cannot apply)');
  t.same([...minimal.grantTypes], ['authorization_code'], 'RFC 7591 default grant type');
  t.same(minimal.scope, [], 'no scope: what the requested resources offer');
  t.equal(minimal.clientName, undefined);
});

t.test('private_key_jwt: a document client confidential by its keys (jwks_uri or jwks), without a secret', async (t) => {
  const keyed = { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://mcp-client.test/jwks.json' };
  const client = clientFromMetadataDocument(ID, document(keyed), POLICY);
  t.same(
    [client.authMethod, client.keys, client.assertionSigningAlg, client.secretDigest],
    ['private_key_jwt', { jwksUri: 'https://mcp-client.test/jwks.json' }, undefined, undefined],
  );
  t.same([...client.corsOrigins], [], 'confidential: its redirect URIs are no CORS origins');
  const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }] };
  const inline = clientFromMetadataDocument(
    ID,
    document({ token_endpoint_auth_method: 'private_key_jwt', jwks, token_endpoint_auth_signing_alg: 'EdDSA' }),
    POLICY,
  );
  t.same([inline.keys, inline.assertionSigningAlg], [{ jwks }, 'EdDSA']);
  const publicWithKeys = clientFromMetadataDocument(ID, document({ jwks_uri: 'https://mcp-client.test/jwks.json' }), POLICY);
  t.same([publicWithKeys.authMethod, publicWithKeys.keys], ['none', undefined], 'a public client’s keys are meant for others: left out');
  refusedWith(
    t,
    document({ token_endpoint_auth_method: 'private_key_jwt' }),
    'private_key_jwt needs the client public keys: jwks or jwks_uri, not both',
  );
  refusedWith(t, document({ ...keyed, jwks_uri: 'http://mcp-client.test/jwks.json' }), 'jwks_uri must be an https URI without fragment');
  refusedWith(
    t,
    document({ ...keyed, grant_types: ['authorization_code', 'client_credentials'] }),
    'grant_types: client_credentials is not offered to metadata-document clients',
    ID,
    { ...POLICY, grantTypes: ['authorization_code', 'client_credentials'] },
  );
});

t.test('OpenID Connect metadata in a document is kept on the client, under the rules of a registration', async (t) => {
  const oidc = {
    post_logout_redirect_uris: ['https://mcp-client.test/signed-out', 'http://127.0.0.1/signed-out'],
    id_token_signed_response_alg: 'EdDSA',
    default_max_age: 600,
    require_auth_time: true,
  };
  const client = clientFromMetadataDocument(ID, document(oidc), POLICY);
  t.same(
    [client.postLogoutRedirectUris, client.idTokenSignedResponseAlg, client.defaultMaxAge, client.requireAuthTime],
    [oidc.post_logout_redirect_uris, 'EdDSA', 600, true],
  );
  t.ok(Object.isFrozen(client.postLogoutRedirectUris));
  const plain = clientFromMetadataDocument(ID, document({ require_auth_time: false, post_logout_redirect_uris: [] }), POLICY);
  t.same(
    [plain.postLogoutRedirectUris, plain.idTokenSignedResponseAlg, plain.defaultMaxAge, plain.requireAuthTime],
    [undefined, undefined, undefined, undefined],
    'nothing set: the defaults apply (RS256, no max_age, auth_time when asked)',
  );
});

t.test('a document claims nothing the operator grants; what is meant for other servers is left out', async (t) => {
  const client = clientFromMetadataDocument(
    ID,
    document({
      // VS Code's document lists the device_code grant, which this policy does not offer.
      grant_types: [
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:device_code',
        // Only the operator grants these (CLIENTS_FILE): left out, with any policy a document states.
        'urn:ietf:params:oauth:grant-type:token-exchange',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
      ],
      token_exchange: { subject_audiences: ['https://mcp.example.com/mcp'], target_resources: ['https://api.example.com/'] },
      response_types: ['code', 'code id_token'],
      introspect_all_tokens: true,
      allowed_origins: ['https://evil.example'],
      client_secret_hash: 'sha256:abc',
      client_uri: 'http://mcp-client.test/',
      logo_uri: 'javascript:alert(1)',
      dpop_bound_access_tokens: true,
    }),
    POLICY,
  );
  t.same([...client.grantTypes], ['authorization_code', 'refresh_token']);
  t.same([...client.responseTypes], ['code']);
  t.equal(client.introspectAllTokens, false);
  t.same([...client.corsOrigins], ['http://127.0.0.1', 'https://mcp-client.test'], 'origins come from the redirect URIs only');
  t.equal(client.secretDigest, undefined);
  t.same([client.clientUri, client.logoUri], [undefined, undefined], 'a client_uri or logo_uri we would not show is left out');
  t.equal(client.dpopBoundAccessTokens, true, 'dpop_bound_access_tokens is honoured, as for a registered client (RFC 9449 §5.2)');
  t.equal(client.tokenExchange, undefined);
});

t.test('the documents widely used MCP clients publish are accepted under the default policy', async (t) => {
  const published: Record<string, unknown>[] = [
    {
      client_id: 'https://claude.ai/oauth/claude-code-client-metadata',
      client_name: 'Claude Code',
      client_uri: 'https://claude.ai',
      redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    {
      client_name: 'Visual Studio Code',
      logo_uri: 'https://code.visualstudio.com/assets/branding/code-stable.png',
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      client_id: 'https://vscode.dev/oauth/client-metadata.json',
      client_uri: 'https://vscode.dev/product',
      redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
    },
  ];
  for (const doc of published) {
    const client = clientFromMetadataDocument(doc.client_id as string, doc, POLICY);
    t.same(
      [client.clientName, [...client.grantTypes], client.redirectUris],
      [doc.client_name, ['authorization_code', 'refresh_token'], doc.redirect_uris],
    );
  }
});

t.test('the device grant of a document: kept when DYNAMIC_CLIENT_GRANTS offers it, else left out (RFC 8628)', async (t) => {
  const device = 'urn:ietf:params:oauth:grant-type:device_code';
  const withDevice: ClientMetadataPolicy = { ...POLICY, grantTypes: ['authorization_code', 'refresh_token', device] };
  const listing = document({ grant_types: ['authorization_code', 'refresh_token', device] });
  t.same([...clientFromMetadataDocument(ID, listing, withDevice).grantTypes], ['authorization_code', 'refresh_token', device]);
  t.same([...clientFromMetadataDocument(ID, listing, POLICY).grantTypes], ['authorization_code', 'refresh_token']);
  refusedWith(t, document({ grant_types: [device], response_types: [] }), 'grant_types: must include authorization_code', ID, withDevice);
});

t.test('the policy of self-registered clients applies to documents (DYNAMIC_CLIENT_GRANTS, scopes resources offer)', async (t) => {
  // A scope no resource offers is one the operator gives only to clients of CLIENTS_FILE.
  refusedWith(t, document({ scope: 'read write admin' }), 'scope: not offered by any registered resource: admin');
  t.same(clientFromMetadataDocument(ID, document({ scope: 'read tools' }), POLICY).scope, ['read', 'tools']);
  refusedWith(
    t,
    document({ grant_types: ['authorization_code', 'password'] }),
    'grant_types: password is not available to dynamically registered clients',
  );
  refusedWith(
    t,
    document({ grant_types: ['authorization_code', 'implicit'] }),
    'grant_types: implicit is not available to dynamically registered clients',
  );
  refusedWith(t, document({ response_types: ['code', 'token'] }), 'response_types: only code is available');
  const codeOnly: ClientMetadataPolicy = { ...POLICY, grantTypes: ['authorization_code'] };
  refusedWith(t, document(), 'grant_types: refresh_token is not available to dynamically registered clients', ID, codeOnly);
  t.same(
    [...clientFromMetadataDocument(ID, document({ grant_types: ['authorization_code'] }), codeOnly).grantTypes],
    ['authorization_code'],
  );
  const machinesOnly: ClientMetadataPolicy = { ...POLICY, grantTypes: ['client_credentials'] };
  refusedWith(
    t,
    document({ grant_types: undefined }),
    'grant_types: authorization_code is not available to dynamically registered clients',
    ID,
    machinesOnly,
  );
  t.same(metadataDocumentGrants(POLICY), ['authorization_code', 'refresh_token']);
  t.same(
    metadataDocumentGrants({ grantTypes: ['authorization_code', 'client_credentials'] }),
    ['authorization_code'],
    'never client_credentials',
  );
  t.same(metadataDocumentGrants(machinesOnly), [], 'no document is accepted without authorization_code');
});

t.test('metadata that registration refuses is refused in a document, for the same reason', async (t) => {
  const about =
    /^(redirect_uris|grant_types|response_types|scope|post_logout_redirect_uris|id_token_signed_response_alg|default_max_age|require_auth_time)/;
  const cases = REFUSED_METADATA.filter(
    ([, body, { description }]) => typeof body === 'object' && !Array.isArray(body) && about.test(description),
  );
  t.ok(cases.length >= 41, `${cases.length} refusals about redirect URIs, grant and response types, scope, and OpenID Connect metadata`);
  for (const [what, body, { description }] of cases) {
    t.throws(
      () => clientFromMetadataDocument(ID, { ...(body as object), client_id: ID }, POLICY),
      new InvalidMetadataDocument(description),
      what,
    );
  }
});

t.test('invalid documents are refused, saying why', async (t) => {
  refusedWith(t, document({ client_id: 'https://mcp-client.test/other.json' }), 'its client_id is not the URL it was fetched from');
  refusedWith(t, document({ client_id: 'https://mcp-client.test/oauth/client.json/' }), 'its client_id is not the URL it was fetched from');
  refusedWith(t, { redirect_uris: ['https://mcp-client.test/cb'] }, 'client_id is missing or not a string');
  refusedWith(t, [document()], 'the document is not a JSON object');
  refusedWith(t, 'https://mcp-client.test/oauth/client.json', 'the document is not a JSON object');
  refusedWith(t, document({ client_secret: 's3cret' }), 'client_secret: MUST NOT be used in a metadata document');
  refusedWith(t, document({ client_secret_expires_at: 0 }), 'client_secret_expires_at: MUST NOT be used in a metadata document');
  for (const method of ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 7]) {
    refusedWith(
      t,
      document({ token_endpoint_auth_method: method }),
      'token_endpoint_auth_method: must be "none" or "private_key_jwt": a metadata document cannot hold a shared secret',
    );
  }
  refusedWith(
    t,
    document({ jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'private' }] } }),
    'jwks: private key material MUST NOT be included',
  );
  refusedWith(t, document({ redirect_uris: undefined }), 'redirect_uris is required with the authorization_code grant type');
  refusedWith(t, document({ redirect_uris: [] }), 'redirect_uris is required with the authorization_code grant type');
  refusedWith(
    t,
    document({ redirect_uris: ['javascript:alert(1)//'] }),
    'redirect_uris[0]: the scheme javascript: is not allowed for redirect URIs',
  );
  refusedWith(t, document({ redirect_uris: ['data:text/html,hi'] }), 'redirect_uris[0]: the scheme data: is not allowed for redirect URIs');
  refusedWith(
    t,
    document({ redirect_uris: ['http://mcp-client.test/cb'] }),
    'redirect_uris[0]: http is allowed only for a loopback address (127.0.0.1, [::1] or localhost); use https',
  );
  refusedWith(
    t,
    document({ redirect_uris: ['https://mcp-client.test/cb#x'] }),
    'redirect_uris[0]: must not have a fragment (RFC 6749 section 3.1.2)',
  );
  refusedWith(t, document({ redirect_uris: ['/relative'] }), 'redirect_uris[0]: must be an absolute URI');
  refusedWith(
    t,
    document({ redirect_uris: ['ftp://evil.example/cb'] }),
    'redirect_uris[0]: the scheme ftp: is not allowed for redirect URIs',
  );
  refusedWith(
    t,
    document({ redirect_uris: ['https://good.example@evil.example/cb'] }),
    'redirect_uris[0]: must not contain user information',
  );
  refusedWith(t, document({ grant_types: ['refresh_token'], response_types: [] }), 'grant_types: must include authorization_code');
  refusedWith(t, document({ response_types: ['token'] }), 'response_types: only code is available');
  refusedWith(t, document({ scope: 'read  write' }), 'scope must be space-separated scope tokens (RFC 6749 section 3.3)');
  refusedWith(t, document({ client_name: 'x'.repeat(201) }), 'client_name must be at most 200 characters');

  const native = clientFromMetadataDocument(
    ID,
    document({
      redirect_uris: ['http://localhost:33418/callback', 'http://[::1]/cb', 'cursor://anysphere.cursor-retrieval/oauth/callback'],
    }),
    POLICY,
  );
  t.equal(native.redirectUris.length, 3, 'loopback http and private-use schemes are accepted');
});

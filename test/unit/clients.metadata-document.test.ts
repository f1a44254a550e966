import t, { type Test } from 'tap';
import { clientFromMetadataDocument, clientIdentifierUrlProblem, InvalidMetadataDocument } from '../../src/clients/metadata-document.js';
import { clientMetadataDocument } from '../helpers/metadata-document-fixtures.js';

const ID = 'https://mcp-client.test/oauth/client.json';

function refusedWith(t: Test, body: unknown, message: string, clientId = ID): void {
  t.throws(() => clientFromMetadataDocument(clientId, body), new InvalidMetadataDocument(message), message);
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
  const client = clientFromMetadataDocument(ID, document({ scope: 'read write', logo_uri: 'https://mcp-client.test/logo.png' }));
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

  const minimal = clientFromMetadataDocument(ID, { client_id: ID, redirect_uris: ['https://mcp-client.test/cb'] });
  t.equal(minimal.authMethod, 'none', 'no token_endpoint_auth_method: public (RFC 7591 client_secret_basic cannot apply)');
  t.same([...minimal.grantTypes], ['authorization_code'], 'RFC 7591 default grant type');
  t.same(minimal.scope, [], 'no scope: what the requested resources offer');
  t.equal(minimal.clientName, undefined);
});

t.test('a document claims nothing the operator grants, and is granted only the code flow', async (t) => {
  const client = clientFromMetadataDocument(
    ID,
    document({
      grant_types: ['authorization_code', 'refresh_token', 'implicit', 'password', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code', 'token'],
      introspect_all_tokens: true,
      allowed_origins: ['https://evil.example'],
      client_secret_hash: 'sha256:abc',
    }),
  );
  t.same([...client.grantTypes], ['authorization_code', 'refresh_token']);
  t.same([...client.responseTypes], ['code']);
  t.equal(client.introspectAllTokens, false);
  t.same([...client.corsOrigins], ['http://127.0.0.1', 'https://mcp-client.test'], 'origins come from the redirect URIs only');
  t.equal(client.secretDigest, undefined);
});

t.test('invalid documents are refused, saying why', async (t) => {
  refusedWith(t, document({ client_id: 'https://mcp-client.test/other.json' }), 'its client_id is not the URL it was fetched from');
  refusedWith(t, document({ client_id: 'https://mcp-client.test/oauth/client.json/' }), 'its client_id is not the URL it was fetched from');
  refusedWith(t, { redirect_uris: ['https://mcp-client.test/cb'] }, 'client_id is missing or not a string');
  refusedWith(t, [document()], 'the document is not a JSON object');
  refusedWith(t, 'https://mcp-client.test/oauth/client.json', 'the document is not a JSON object');
  refusedWith(t, document({ client_secret: 's3cret' }), 'client_secret: MUST NOT be used in a metadata document');
  refusedWith(t, document({ client_secret_expires_at: 0 }), 'client_secret_expires_at: MUST NOT be used in a metadata document');
  for (const method of ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt']) {
    refusedWith(
      t,
      document({ token_endpoint_auth_method: method }),
      'token_endpoint_auth_method: must be "none": only public clients are accepted from metadata documents',
    );
  }
  refusedWith(
    t,
    document({ jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'private' }] } }),
    'jwks: private key material MUST NOT be included',
  );
  refusedWith(t, document({ redirect_uris: undefined }), 'redirect_uris: Invalid input: expected array, received undefined');
  refusedWith(t, document({ redirect_uris: [] }), 'redirect_uris: at least one redirect URI is required');
  refusedWith(t, document({ redirect_uris: ['javascript:alert(1)//'] }), 'redirect_uris.0: the javascript: scheme is not allowed');
  refusedWith(t, document({ redirect_uris: ['data:text/html,hi'] }), 'redirect_uris.0: the data: scheme is not allowed');
  refusedWith(
    t,
    document({ redirect_uris: ['http://mcp-client.test/cb'] }),
    'redirect_uris.0: http redirect URIs are accepted only for loopback (127.0.0.1, [::1], localhost)',
  );
  refusedWith(t, document({ redirect_uris: ['https://mcp-client.test/cb#x'] }), 'redirect_uris.0: must not have a fragment');
  refusedWith(t, document({ redirect_uris: ['/relative'] }), 'redirect_uris.0: must be an absolute URI');
  refusedWith(t, document({ grant_types: ['refresh_token'] }), 'grant_types: must include authorization_code');
  refusedWith(t, document({ response_types: ['token'] }), 'response_types: must include code');
  refusedWith(t, document({ scope: 'read  write' }), 'scope: must be space-separated scope tokens (RFC 6749 §3.3)');
  refusedWith(t, document({ client_name: '' }), 'client_name: Too small: expected string to have >=1 characters');

  const native = clientFromMetadataDocument(
    ID,
    document({
      redirect_uris: ['http://localhost:33418/callback', 'http://[::1]/cb', 'cursor://anysphere.cursor-retrieval/oauth/callback'],
    }),
  );
  t.equal(native.redirectUris.length, 3, 'loopback http and private-use schemes are accepted');
});

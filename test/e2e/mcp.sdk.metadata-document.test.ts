import { decodeJwt } from 'jose';
import t from 'tap';
import { launchChromium } from '../helpers/chromium.js';
import { DocumentServer } from '../helpers/document-server.js';
import { mcpServerAddress, startAuthorizationServer, startExampleMcpServer, TOOLS_SCOPE } from '../helpers/mcp.js';
import { authorizeMcpClient, BrowserOAuthProvider, connectWithOAuth, startCallbackServer } from '../helpers/mcp-oauth.js';
import { clientMetadataDocument } from '../helpers/metadata-document-fixtures.js';
import { PROCESS_ALICE } from '../helpers/registry-files.js';
import { selfSignedCertificate } from '../helpers/tls.js';

/**
 * The official MCP SDK client with a Client ID Metadata Document: its `clientMetadataUrl`
 * (https, non-root path, served by the test with a self-signed certificate the server
 * trusts through NODE_EXTRA_CA_CERTS) becomes its client_id, because our metadata says
 * `client_id_metadata_document_supported`. No registration, no CLIENTS_FILE entry.
 */
const DOCUMENT_PATH = '/mcp-client/oauth-client.json';

t.test('the MCP SDK client identified by its metadata document URL, through login and consent in Chromium', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const documents = await DocumentServer.start(t, certificate);
  const mcp = await mcpServerAddress();
  const metadataDocuments = { CLIENT_ID_METADATA_DOCUMENTS: 'true', NODE_EXTRA_CA_CERTS: certificate.certFile };
  // Loopback addresses are special-use: only CLIENT_ID_METADATA_ALLOW_INSECURE lets the server fetch from this test.
  const as = await startAuthorizationServer(t, {
    resources: [mcp.resource],
    env: { ...metadataDocuments, CLIENT_ID_METADATA_ALLOW_INSECURE: 'true' },
  });
  await startExampleMcpServer(t, as.issuer, mcp);
  const browser = await launchChromium(t);
  const callback = await startCallbackServer(t);
  const provider = (clientMetadataUrl: string) =>
    new BrowserOAuthProvider({
      browser,
      callback,
      clientMetadataUrl,
      clientMetadata: { client_name: 'E2E MCP client', redirect_uris: [callback.redirectUri], token_endpoint_auth_method: 'none' },
    });

  t.test('discovery, the document URL as client_id, PKCE and resource, tools with aud = the MCP server', async (t) => {
    const clientId = documents.url(DOCUMENT_PATH);
    documents.serveJson(
      DOCUMENT_PATH,
      clientMetadataDocument(clientId, { client_name: 'E2E MCP client', redirect_uris: ['http://127.0.0.1/callback'] }),
    );
    const client = provider(clientId);
    const session = await connectWithOAuth(t, mcp.resource, client, callback);

    const metadata = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    t.equal(metadata.client_id_metadata_document_supported, true, 'what makes the SDK use the URL');
    t.match(Object.fromEntries(client.authorizationUrls[0]?.searchParams ?? []), {
      client_id: clientId,
      code_challenge_method: 'S256',
      resource: mcp.resource,
      scope: TOOLS_SCOPE,
      redirect_uri: callback.redirectUri,
    });
    t.ok(documents.requestsFor(DOCUMENT_PATH) >= 1, 'the server fetched the document');
    t.notOk(
      session.requests.some((r) => r.url.startsWith(`${as.issuer}/oauth2/register`)),
      'no dynamic registration',
    );
    t.match(client.consentTexts[0], 'E2E MCP client');
    const exchange = session.requests.find((r) => r.url === `${as.issuer}/oauth2/token`);
    const sent = Object.fromEntries(new URLSearchParams(exchange?.body));
    t.match(sent, { grant_type: 'authorization_code', client_id: clientId, resource: mcp.resource });
    t.notOk('client_secret' in sent, 'a public client: no secret');

    t.match(decodeJwt(client.tokens()?.access_token ?? ''), { aud: mcp.resource, client_id: clientId, sub: PROCESS_ALICE.sub });
    const whoami = await session.client.callTool({ name: 'whoami' });
    t.same(whoami.structuredContent, { sub: PROCESS_ALICE.sub, client_id: clientId, scope: TOOLS_SCOPE, aud: mcp.resource });
  });

  t.test('a document whose client_id is not its URL: the client is unknown, no redirect', async (t) => {
    const path = '/mcp-client/impostor.json';
    documents.serveJson(
      path,
      clientMetadataDocument('https://mcp-client.test/oauth-client.json', { redirect_uris: ['http://127.0.0.1/callback'] }),
    );
    const client = provider(documents.url(path));
    const { arrived, requests } = await authorizeMcpClient(mcp.resource, client, callback);
    t.equal(arrived, undefined, 'nothing went back to the redirect URI');
    t.equal(client.errorPages[0]?.status, 400);
    t.match(client.errorPages[0]?.text, 'the client is not registered');
    t.equal(documents.requestsFor(path), 1, 'fetched, and refused');
    t.notOk(
      requests.some((r) => r.url === `${as.issuer}/oauth2/token`),
      'no token request',
    );
  });

  t.test('a document URL resolving to a special-use address, without the development exception: refused unfetched', async (t) => {
    const address = await mcpServerAddress();
    const strict = await startAuthorizationServer(t, { resources: [address.resource], env: metadataDocuments });
    const strictMcp = await startExampleMcpServer(t, strict.issuer, address);
    const connections = documents.connections;
    // localhost resolves to 127.0.0.1 (or ::1): the fetcher refuses the name before any socket connects.
    const clientId = `https://localhost:${documents.port}${DOCUMENT_PATH}`;
    const client = provider(clientId);
    const { arrived } = await authorizeMcpClient(strictMcp.resource, client, callback);
    t.equal(arrived, undefined);
    t.equal(client.errorPages[0]?.status, 400);
    t.match(client.errorPages[0]?.text, 'the client is not registered');
    t.equal(documents.connections, connections, 'no connection reached the document server');
    const refusal = () =>
      strict
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.clientId === clientId);
    // The log line may reach our end of the pipe a moment after the page.
    for (let waited = 0; !refusal() && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    t.match(refusal(), {
      reason: /^localhost resolves to (127\.0\.0\.1|::1), a special-use address \(RFC 6890\)$/,
      msg: 'client id metadata document not usable: the client is unknown',
    });
  });
});

import t, { type Test } from 'tap';
import { pkcePair } from '../helpers/browser-flow.js';
import { DocumentServer } from '../helpers/document-server.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { clientMetadataDocument } from '../helpers/metadata-document-fixtures.js';
import { freePort } from '../../harness/ports.js';
import { startServerProcess, untilPrinted } from '../../harness/process.js';
import { selfSignedCertificate, type TestCertificate } from '../helpers/tls.js';

/**
 * The built server fetching a Client ID Metadata Document over HTTPS from a local server
 * whose certificate it trusts through NODE_EXTRA_CA_CERTS: how an end-to-end test (the MCP
 * SDK's, which requires an https clientMetadataUrl) points the server at a test CA.
 */

const WARNING =
  'CLIENT_ID_METADATA_ALLOW_INSECURE=true: client metadata documents and client jwks_uri may be fetched over http and from loopback and private addresses; development and tests only, never in production';

async function start(t: Test, certificate: TestCertificate, env: Record<string, string>) {
  const port = await freePort();
  return startServerProcess(t, {
    PORT: String(port),
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENT_ID_METADATA_DOCUMENTS: 'true',
    NODE_EXTRA_CA_CERTS: certificate.certFile,
    ...env,
  });
}

const logLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

t.test('a metadata document served over HTTPS with a test CA', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const documents = await DocumentServer.start(t, certificate);
  const clientId = documents.url('/client.json');
  documents.serveJson('/client.json', clientMetadataDocument(clientId, { client_name: 'Process test client' }));
  const { challenge } = pkcePair();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:49152/callback',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });

  t.test('with CLIENT_ID_METADATA_ALLOW_INSECURE: a warning at start, and the document is used', async (t) => {
    const server = await start(t, certificate, { CLIENT_ID_METADATA_ALLOW_INSECURE: 'true' });
    t.ok(
      await untilPrinted(server, (output) => logLines(output).some((line) => line.level === 40 && line.msg === WARNING)),
      'warned at start',
    );
    const metadata = (await (await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    t.equal(metadata.client_id_metadata_document_supported, true);
    const login = await fetch(`${server.baseUrl}/oauth2/authorize?${query}`);
    t.equal(login.status, 200);
    t.match(await login.text(), '<strong>Process test client</strong> (not pre-registered, from 127.0.0.1:');
    t.equal(documents.requestsFor('/client.json'), 1);
  });

  t.test('without it: a loopback address is refused, the reason logged, no warning', async (t) => {
    const before = documents.connections;
    const server = await start(t, certificate, {});
    const page = await fetch(`${server.baseUrl}/oauth2/authorize?${query}`);
    t.equal(page.status, 400);
    t.match(await page.text(), 'the client is not registered');
    t.equal(documents.connections, before, 'nothing fetched');
    const logged = () =>
      logLines(server.output()).some(
        (line) =>
          line.clientId === clientId &&
          line.reason === '127.0.0.1 is a special-use address (RFC 6890)' &&
          line.msg === 'client id metadata document not usable: the client is unknown',
      );
    // The line may reach our end of the pipe a moment after the page.
    for (let waited = 0; !logged() && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    t.ok(logged(), 'the reason is logged');
    t.notOk(
      logLines(server.output()).some((line) => line.msg === WARNING),
      'no warning',
    );
  });
});

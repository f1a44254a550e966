import { randomInt } from 'node:crypto';
import t, { type Test } from 'tap';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, pkcePair, redirectParams } from '../helpers/browser-flow.js';
import { DocumentServer } from '../helpers/document-server.js';
import { capturedLogger } from '../helpers/logs.js';
import { clientMetadataDocument } from '../helpers/metadata-document-fixtures.js';
import { claimsOf, MCP, RESOURCES } from '../helpers/resource-fixtures.js';
import { buildTestServer, FORM_HEADERS, form, ISSUER, NO_STORE_JSON, type TestServer } from '../helpers/server.js';
import { selfSignedCertificate, type TestCertificate } from '../helpers/tls.js';

/**
 * A client nobody registered, identified by the https URL of its Client ID Metadata
 * Document, runs the whole code flow an MCP client runs: PKCE, `resource`, consent,
 * token, refresh. The document is served over HTTPS by a local server under the name
 * mcp-client.test, which the injected resolver maps to 127.0.0.1.
 */

const CIMD_ON = { CLIENT_ID_METADATA_DOCUMENTS: 'true' };
/** The document server is on loopback: reaching it needs the development switch. */
const CIMD_INSECURE = { ...CIMD_ON, CLIENT_ID_METADATA_ALLOW_INSECURE: 'true' };

const PAGE_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };

async function cimdServer(t: Test, certificate: TestCertificate, env: Record<string, string>, address = '127.0.0.1', logger?: unknown) {
  return buildTestServer(t, {
    env,
    logger,
    users: testUsers(),
    resources: RESOURCES,
    outboundFetch: {
      ca: certificate.cert,
      resolve: async (hostname) => (hostname === 'mcp-client.test' ? [{ address, family: 4 }] : []),
    },
  });
}

/** An authorization page must be an error page for `description`, and never a redirect. */
function expectErrorPage(t: Test, res: { statusCode: number; headers: Record<string, unknown>; body: string }, description: string) {
  t.equal(res.statusCode, 400);
  t.equal(res.headers.location, undefined, 'never a redirect');
  t.match(res.headers, PAGE_HEADERS);
  t.match(res.body, `<p class="error" role="alert">${description}</p>`);
}

t.test('the code flow of a client identified by its metadata document', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const documents = await DocumentServer.start(t, certificate);
  const clientId = `https://mcp-client.test:${documents.port}/client.json`;
  documents.serveJson('/client.json', clientMetadataDocument(clientId), { 'cache-control': 'max-age=3600' });
  const { app }: TestServer = await cimdServer(t, certificate, CIMD_INSECURE);
  const { verifier, challenge } = pkcePair();
  const redirectUri = `http://127.0.0.1:${randomInt(1024, 65536)}/callback`;
  const browser = new InjectBrowser(app);
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'tools',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };

  // The login page already says the client is not pre-registered, and where it comes from.
  const login = await browser.get(authorizeUrl(params, [MCP]));
  t.equal(login.statusCode, 200);
  t.match(
    login.body,
    `to continue to <strong>Example &#60;MCP&#62; Client</strong> (not pre-registered, from mcp-client.test:${documents.port})`,
  );
  const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  t.equal(afterLogin.statusCode, 303);

  // The consent page: the redirect URI's host, prominently, the not-pre-registered mark, the loopback warning.
  const consent = await browser.get(afterLogin.headers.location as string);
  t.equal(consent.statusCode, 200);
  t.match(consent.headers, PAGE_HEADERS);
  t.match(consent.body, '<strong>Example &#60;MCP&#62; Client</strong> asks for access to your account');
  t.match(
    consent.body,
    `<p class="notice"><strong>Not pre-registered.</strong> This application describes itself at <strong>mcp-client.test:${documents.port}</strong>`,
  );
  t.match(consent.body, `<p>If you allow, you go back to <strong class="host">${new URL(redirectUri).host}</strong></p>`);
  t.match(consent.body, 'That address is on this computer');
  t.match(consent.body, `<li><strong>Example &#60;MCP&#62;</strong> <span class="muted"><code>${MCP}</code></span></li>`);
  t.match(consent.body, '<li><code>tools</code></li>');
  t.notMatch(consent.body, '<MCP>', 'the name from the document is escaped');

  const approved = await browser.post(formAction(consent.body), { ...formFields(consent.body), decision: 'allow' });
  t.equal(approved.statusCode, 303);
  t.ok((approved.headers.location as string).startsWith(`${redirectUri}?`), 'the code goes to the loopback port of this request');
  const answer = redirectParams(approved.headers.location as string);
  t.same(Object.keys(answer).sort(), ['code', 'iss', 'state']);
  t.equal(answer.iss, ISSUER);

  const tokenRequest = (fields: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: form({ client_id: clientId, resource: MCP, ...fields }),
    });
  const issued = await tokenRequest({
    grant_type: 'authorization_code',
    code: answer.code as string,
    code_verifier: verifier,
    redirect_uri: redirectUri,
  });
  t.equal(issued.statusCode, 200);
  t.match(issued.headers, NO_STORE_JSON);
  const tokens = issued.json();
  t.same(Object.keys(tokens).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
  t.match(tokens, { token_type: 'bearer', scope: 'tools', expires_in: 900 });
  t.match(claimsOf(tokens.access_token), { iss: ISSUER, aud: MCP, sub: 'user-alice', client_id: clientId, scope: 'tools' });

  const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
  t.equal(refreshed.statusCode, 200);
  t.match(refreshed.json(), { token_type: 'bearer', scope: 'tools' });
  t.match(claimsOf(refreshed.json().access_token), { aud: MCP, client_id: clientId });
  t.not(refreshed.json().refresh_token, tokens.refresh_token, 'rotated');

  t.equal(documents.requestsFor('/client.json'), 1, 'the document was fetched once for the whole flow (max-age=3600)');
});

t.test('an https redirect URI: its host is shown, without the loopback warning', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const documents = await DocumentServer.start(t, certificate);
  const clientId = `https://mcp-client.test:${documents.port}/client.json`;
  documents.serveJson('/client.json', clientMetadataDocument(clientId));
  const { app } = await cimdServer(t, certificate, CIMD_INSECURE);
  const browser = new InjectBrowser(app);
  const { challenge } = pkcePair();
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'https://mcp-client.test/callback',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const login = await browser.get(authorizeUrl(params, [MCP]));
  const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  const consent = await browser.get(afterLogin.headers.location as string);
  t.match(consent.body, '<p>If you allow, you go back to <strong class="host">mcp-client.test</strong></p>');
  t.notMatch(consent.body, 'That address is on this computer');
});

t.test('a client_id URL whose document cannot be used is an unknown client: an error page, never a redirect', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const documents = await DocumentServer.start(t, certificate);
  const id = (path: string) => `https://mcp-client.test:${documents.port}${path}`;
  const { challenge } = pkcePair();
  const request = (clientId: string, redirectUri = 'http://127.0.0.1/callback') =>
    authorizeUrl({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });

  t.test('its client_id is not its URL: the reason is logged, the document is not', async (t) => {
    const log = capturedLogger('info');
    const { app } = await cimdServer(t, certificate, CIMD_INSECURE, '127.0.0.1', log.logger);
    documents.serveJson('/impostor.json', clientMetadataDocument('https://famous-app.example/client.json'));
    expectErrorPage(t, await app.inject({ url: request(id('/impostor.json')) }), 'the client is not registered');
    const refusals = log
      .lines()
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'client id metadata document not usable: the client is unknown');
    t.same(
      refusals.map(({ clientId, reason, level }) => ({ clientId, reason, level })),
      [{ clientId: id('/impostor.json'), reason: 'its client_id is not the URL it was fetched from', level: 30 }],
    );
    t.notMatch(log.text(), 'famous-app', 'nothing of the document is logged');
  });

  t.test('it claims a scope no resource offers: the policy of registrations applies, with registration off', async (t) => {
    const log = capturedLogger('info');
    const { app } = await cimdServer(t, certificate, CIMD_INSECURE, '127.0.0.1', log.logger);
    // `admin`: no resource offers it; only clients of CLIENTS_FILE can hold it.
    documents.serveJson('/admin.json', clientMetadataDocument(id('/admin.json'), { scope: 'read write admin' }));
    const res = await app.inject({ url: `${request(id('/admin.json'))}&scope=admin` });
    expectErrorPage(t, res, 'the client is not registered');
    t.notMatch(res.body, 'admin', 'no consent page offers it');
    const refusals = log
      .lines()
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'client id metadata document not usable: the client is unknown');
    t.same(
      refusals.map(({ clientId, reason }) => ({ clientId, reason })),
      [{ clientId: id('/admin.json'), reason: 'scope: not offered by any registered resource: admin' }],
    );
  });

  t.test('a redirect URI registration refuses (ftp:, user information before another host)', async (t) => {
    const { app } = await cimdServer(t, certificate, CIMD_INSECURE);
    for (const uri of ['ftp://evil.example/cb', 'https://good.example@evil.example/cb']) {
      const path = `/redirect-${uri.length}.json`;
      documents.serveJson(path, clientMetadataDocument(id(path), { redirect_uris: [uri] }));
      expectErrorPage(t, await app.inject({ url: request(id(path), uri) }), 'the client is not registered');
    }
  });

  t.test('its URL resolves to a private address (no development switch)', async (t) => {
    const { app } = await cimdServer(t, certificate, CIMD_ON, '10.0.0.5');
    documents.serveJson('/client.json', clientMetadataDocument(id('/client.json')));
    const before = documents.connections;
    expectErrorPage(t, await app.inject({ url: request(id('/client.json')) }), 'the client is not registered');
    t.equal(documents.connections, before, 'nothing was fetched');
  });

  t.test('the document is missing', async (t) => {
    const { app } = await cimdServer(t, certificate, CIMD_INSECURE);
    expectErrorPage(t, await app.inject({ url: request(id('/missing.json')) }), 'the client is not registered');
  });

  t.test('the feature is off: an https client_id is just an unknown id, never fetched', async (t) => {
    const { app } = await cimdServer(t, certificate, {});
    documents.serveJson('/client.json', clientMetadataDocument(id('/client.json')));
    const before = documents.requests.length;
    expectErrorPage(t, await app.inject({ url: request(id('/client.json')) }), 'the client is not registered');
    t.equal(documents.requests.length, before);
  });

  t.test('the token endpoint: invalid_client, as for any unknown client', async (t) => {
    const { app } = await cimdServer(t, certificate, CIMD_INSECURE);
    const res = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: form({ grant_type: 'authorization_code', client_id: id('/missing.json'), code: 'x', code_verifier: 'y'.repeat(43) }),
    });
    t.equal(res.statusCode, 401);
    t.same(res.json(), { error: 'invalid_client', error_description: 'client authentication failed' });
  });
});

t.test('discovery advertises client_id_metadata_document_supported only when on', async (t) => {
  const metadata = async (env: Record<string, string>) => {
    const { app } = await buildTestServer(t, { env, clients: [] });
    return (await app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
  };
  const on = await metadata(CIMD_ON);
  t.equal(on.client_id_metadata_document_supported, true);
  t.equal(on.authorization_endpoint, `${ISSUER}/oauth2/authorize`, 'with no client in the file, CIMD clients still need the endpoint');
  t.same(on.response_types_supported, ['code']);
  t.same(on.grant_types_supported, ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']);
  t.same(on.token_endpoint_auth_methods_supported, ['private_key_jwt', 'none'], 'public, or confidential by its keys');
  t.same(on.token_endpoint_auth_signing_alg_values_supported, ['ES256', 'EdDSA', 'Ed25519', 'RS256', 'PS256']);
  t.same(on.code_challenge_methods_supported, ['S256']);
  const codeOnly = await metadata({ ...CIMD_ON, DYNAMIC_CLIENT_GRANTS: 'authorization_code' });
  t.same(codeOnly.grant_types_supported, ['authorization_code'], 'DYNAMIC_CLIENT_GRANTS applies to document clients too');
  const off = await metadata({});
  t.equal(off.client_id_metadata_document_supported, undefined);
  t.same(off.token_endpoint_auth_methods_supported, []);
});

import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers } from '../helpers/authorize-fixtures.js';
import { formAction, formFields, InjectBrowser, pkcePair } from '../helpers/browser-flow.js';
import { capturedLogger } from '../helpers/logs.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { JSON_HEADERS, NATIVE_CLIENT, registrationServer, WEB_CLIENT, withRegistration } from '../helpers/registration.js';
import { MCP, RESOURCES } from '../helpers/resource-fixtures.js';
import { buildTestServer, FORM_HEADERS, form, ISSUER } from '../helpers/server.js';
import { TokenClient } from '../helpers/token-client.js';

/** The registration endpoint's surroundings: its modes, discovery, CORS, logs, the pages, and CLIENTS_FILE's precedence. */

const metadataOf = async (app: Awaited<ReturnType<typeof buildTestServer>>['app']) =>
  (await app.inject({ url: '/.well-known/oauth-authorization-server' })).json();

t.test('DYNAMIC_CLIENT_REGISTRATION=off (the default): no endpoint, nothing in the metadata', async (t) => {
  const { app } = await buildTestServer(t, { clients: [AUTHORIZE_CLIENTS[3]] });
  const res = await app.inject({ method: 'POST', url: '/oauth2/register', headers: JSON_HEADERS, payload: JSON.stringify(NATIVE_CLIENT) });
  expectOAuthError(t, res, { status: 404, error: 'not_found', description: 'there is no endpoint at this path' });
  const metadata = await metadataOf(app);
  t.equal(metadata.registration_endpoint, undefined);
  t.same(metadata.token_endpoint_auth_methods_supported, ['client_secret_basic'], 'only what the file clients use');
  t.same(metadata.grant_types_supported, ['client_credentials']);
});

t.test('with registration on, the metadata lists the endpoint and what a registered client may get', async (t) => {
  const { app } = await buildTestServer(t, { clients: [AUTHORIZE_CLIENTS[3]], env: { DYNAMIC_CLIENT_REGISTRATION: 'open' } });
  const metadata = await metadataOf(app);
  t.equal(metadata.registration_endpoint, `${ISSUER}/oauth2/register`);
  const methods = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];
  t.same(metadata.token_endpoint_auth_methods_supported, [...methods, 'none']);
  t.same(metadata.revocation_endpoint_auth_methods_supported, [...methods, 'none']);
  t.same(metadata.introspection_endpoint_auth_methods_supported, methods);
  t.same(metadata.token_endpoint_auth_signing_alg_values_supported, ['ES256', 'EdDSA', 'Ed25519', 'RS256', 'PS256']);
  t.same(metadata.grant_types_supported, [
    'authorization_code',
    'client_credentials',
    'refresh_token',
    'urn:ietf:params:oauth:grant-type:device_code',
  ]);
  t.equal(metadata.device_authorization_endpoint, `${ISSUER}/oauth2/device_authorization`, 'a registered client may use the device flow');
  t.same(metadata.response_types_supported, ['code']);
  t.equal(metadata.authorization_endpoint, `${ISSUER}/oauth2/authorize`);
  const both = await buildTestServer(t, {
    env: {
      DYNAMIC_CLIENT_REGISTRATION: 'token',
      CLIENT_ID_METADATA_DOCUMENTS: 'true',
      REGISTRATION_INITIAL_ACCESS_TOKENS: `sha256:${'A'.repeat(43)}`,
    },
  });
  t.match(
    await metadataOf(both.app),
    {
      registration_endpoint: `${ISSUER}/oauth2/register`,
      client_id_metadata_document_supported: true,
    },
    'registration and metadata documents side by side',
  );
  const withPath = await buildTestServer(t, { env: { ISSUER: 'https://example.com/tenant-a', DYNAMIC_CLIENT_REGISTRATION: 'open' } });
  const tenant = (await withPath.app.inject({ url: '/.well-known/oauth-authorization-server/tenant-a' })).json();
  t.equal(tenant.registration_endpoint, 'https://example.com/tenant-a/oauth2/register');
  const registered = await withPath.app.inject({
    method: 'POST',
    url: '/tenant-a/oauth2/register',
    headers: JSON_HEADERS,
    payload: JSON.stringify({ ...NATIVE_CLIENT, scope: undefined }),
  });
  t.equal(registered.json().registration_client_uri, `https://example.com/tenant-a/oauth2/register/${registered.json().client_id}`);
});

t.test('CORS: any origin may register and manage (no credentials mode); preflights answered', async (t) => {
  const server = await registrationServer(t);
  const origin = { origin: 'https://inspector.example' };
  const preflight = await server.app.inject({
    method: 'OPTIONS',
    url: '/oauth2/register',
    headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  t.equal(preflight.statusCode, 204);
  t.match(preflight.headers, {
    allow: 'OPTIONS, POST',
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST',
    'access-control-allow-headers': 'Content-Type, Authorization',
    'access-control-max-age': '600',
  });
  t.equal(preflight.headers['access-control-allow-credentials'], undefined);
  const configuration = await server.app.inject({
    method: 'OPTIONS',
    url: '/oauth2/register/dyn_AAAAAAAAAAAAAAAAAAAAAA',
    headers: { ...origin, 'access-control-request-method': 'DELETE' },
  });
  t.match(configuration.headers, { allow: 'OPTIONS, GET, PUT, DELETE', 'access-control-allow-methods': 'GET, PUT, DELETE' });
  const plain = await server.app.inject({ method: 'OPTIONS', url: '/oauth2/register' });
  t.equal(plain.headers['access-control-allow-methods'], undefined, 'an OPTIONS that is no preflight gets no CORS method list');
  const registered = await server.register(NATIVE_CLIENT, origin);
  t.match(registered.headers, { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'WWW-Authenticate, Retry-After' });
  const refused = await server.register({ redirect_uris: ['javascript:x'] }, origin);
  t.equal(refused.headers['access-control-allow-origin'], '*', 'errors are readable too');
  const patch = await server.app.inject({ method: 'PATCH', url: `/oauth2/register/${registered.json().client_id}` });
  expectOAuthError(t, patch, {
    status: 405,
    error: 'invalid_request',
    description: 'method not allowed: this endpoint accepts DELETE, GET, HEAD, OPTIONS, PUT',
    headers: { allow: 'DELETE, GET, HEAD, OPTIONS, PUT' },
  });
});

t.test('one info line per registration, update and deletion; never a secret or a token', async (t) => {
  const captured = capturedLogger('trace');
  const base = await buildTestServer(t, {
    clients: AUTHORIZE_CLIENTS,
    resources: RESOURCES,
    env: { DYNAMIC_CLIENT_REGISTRATION: 'open', LOG_LEVEL: 'trace' },
    logger: captured.logger,
  });
  const server = withRegistration(base.app, base, ClientRegistry.fromMetadata(AUTHORIZE_CLIENTS));
  const info = await server.registered(t, { ...WEB_CLIENT, software_id: 'example-app' });
  const token = info.registration_access_token;
  await server.manage('PUT', info.client_id, token, {
    ...WEB_CLIENT,
    client_id: info.client_id,
    client_secret: info.client_secret,
  });
  await server.manage('GET', info.client_id, token);
  await server.manage('DELETE', info.client_id, token);
  const events = captured
    .lines()
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === 'client registered' || String(entry.msg).startsWith('client registration'));
  t.same(
    events.map((e) => [e.level, e.msg, e.client_id]),
    [
      [30, 'client registered', info.client_id],
      [30, 'client registration updated', info.client_id],
      [30, 'client registration deleted', info.client_id],
    ],
  );
  t.match(events[0], {
    client_name: WEB_CLIENT.client_name,
    redirect_uris: WEB_CLIENT.redirect_uris,
    grant_types: WEB_CLIENT.grant_types,
    token_endpoint_auth_method: 'client_secret_basic',
    software_id: 'example-app',
    reqId: /./,
  });
  const everything = captured.text();
  t.notMatch(everything, info.client_secret as string, 'the client secret is in no log line, at trace');
  t.notMatch(everything, token, 'nor the registration access token');
});

t.test('the login and consent pages mark a client that registered itself, escaped', async (t) => {
  const server = await registrationServer(t);
  const info = await server.registered(t, {
    ...NATIVE_CLIENT,
    client_name: 'Google <Drive> & "Docs"',
    logo_uri: 'https://cdn.drive.example/logo.png?a=1&b="2"',
    client_uri: 'https://drive.example/',
  });
  const browser = new InjectBrowser(server.app);
  const { challenge } = pkcePair();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: info.client_id,
    redirect_uri: 'http://127.0.0.1:8123/callback',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: MCP,
  });
  const login = await browser.get(`/oauth2/authorize?${query}`);
  t.equal(login.statusCode, 200);
  const name = '<strong>Google &#60;Drive&#62; &#38; &#34;Docs&#34;</strong>';
  t.match(login.body, `to continue to ${name} (not pre-registered: it registered itself)</p>`);
  const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  const consent = await browser.get(afterLogin.headers.location as string);
  t.match(consent.body, `${name} asks for access to your account`);
  t.match(consent.body, '<img src="https://cdn.drive.example/logo.png?a=1&#38;b=&#34;2&#34;" alt=""', 'its logo, escaped');
  t.match(consent.headers['content-security-policy'], 'img-src https://cdn.drive.example; ', 'its origin alone');
  const refused = await browser.get(
    `/oauth2/authorize?${new URLSearchParams({ ...Object.fromEntries(query), redirect_uri: 'https://elsewhere.example/cb' })}`,
  );
  t.match(refused.body, 'You can close this window', 'its client_uri is its own claim: never linked from an error page');
  t.notMatch(refused.body, 'drive.example/"');
  t.match(
    consent.body,
    '<p class="notice"><strong>Not pre-registered.</strong> This application registered itself with this server; the operator of this server has not reviewed it, and its name and logo are its own claim.</p>',
  );
  t.match(consent.body, 'If you allow, you go back to <strong class="host">127.0.0.1:8123</strong>');
  t.match(consent.body, 'That address is on this computer', 'a loopback redirect URI is warned about');
  t.notMatch(consent.body, '<Drive>', 'never unescaped');
  const fileClient = await new InjectBrowser(server.app).get(
    `/oauth2/authorize?response_type=code&client_id=web&redirect_uri=${encodeURIComponent('https://app.example.com/callback')}&code_challenge=${challenge}&code_challenge_method=S256`,
  );
  t.equal(fileClient.statusCode, 200);
  t.notMatch(fileClient.body, 'pre-registered', 'a client of CLIENTS_FILE has no mark');
  const custom = await server.registered(t, { ...NATIVE_CLIENT, redirect_uris: ['com.example.app:/callback'] });
  const customConsent = await browser.get(
    `/oauth2/authorize?response_type=code&client_id=${custom.client_id}&code_challenge=${challenge}&code_challenge_method=S256`,
  );
  t.match(customConsent.body, 'If you allow, you go back to <strong class="host">com.example.app:</strong>', "a native app's scheme");
  t.notMatch(customConsent.body, 'That address is on this computer');
});

t.test('CLIENTS_FILE comes first: a registration whose id the file now holds is not served', async (t) => {
  const fileClients = ClientRegistry.fromMetadata(AUTHORIZE_CLIENTS);
  const base = await buildTestServer(t, {
    clientRegistry: fileClients,
    users: testUsers(),
    env: { DYNAMIC_CLIENT_REGISTRATION: 'open' },
  });
  const server = withRegistration(base.app, base, fileClients);
  const info = await server.registered(t, NATIVE_CLIENT);
  const id = info.client_id;
  t.equal((await new TokenClient(server.app, id, null).revoke('x')).statusCode, 200);
  // The operator adds a confidential client with that id to CLIENTS_FILE, then SIGHUP.
  fileClients.replace(
    ClientRegistry.fromMetadata([
      ...AUTHORIZE_CLIENTS,
      { client_id: id, client_secret_hash: 'sha256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', grant_types: ['client_credentials'] },
    ]),
  );
  expectOAuthError(t, await new TokenClient(server.app, id, null).revoke('x'), {
    status: 401,
    error: 'invalid_client',
    description: 'client authentication failed',
  });
  expectOAuthError(t, await server.manage('GET', id, info.registration_access_token), {
    status: 401,
    error: 'invalid_token',
    description: 'the registration access token is invalid, or the client is not registered',
  });
});

t.test("CORS at the token endpoint: a registered public client's redirect origins, for its own requests only", async (t) => {
  const server = await registrationServer(t);
  const info = await server.registered(t, { ...NATIVE_CLIENT, redirect_uris: ['https://spa.example.org/callback'] });
  const tokenRequest = (origin: string) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, origin },
      payload: form({ grant_type: 'authorization_code', code: 'not-a-code', client_id: info.client_id, code_verifier: 'x'.repeat(43) }),
    });
  const allowed = await tokenRequest('https://spa.example.org');
  t.equal(allowed.statusCode, 400);
  t.match(allowed.headers, { 'access-control-allow-origin': 'https://spa.example.org', vary: 'Origin' }, 'a simple request: no preflight');
  const other = await tokenRequest('https://other.example.org');
  t.equal(other.headers['access-control-allow-origin'], undefined);
  const preflight = await server.app.inject({
    method: 'OPTIONS',
    url: '/oauth2/token',
    headers: { origin: 'https://spa.example.org', 'access-control-request-method': 'POST' },
  });
  t.equal(preflight.statusCode, 204);
  t.equal(preflight.headers['access-control-allow-origin'], undefined, 'a preflight knows only the clients of CLIENTS_FILE');
});

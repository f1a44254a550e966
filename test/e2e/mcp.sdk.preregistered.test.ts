import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import t from 'tap';
import { launchChromium } from '../helpers/chromium.js';
import { mcpServerAddress, startAuthorizationServer, startExampleMcpServer, TOOLS_SCOPE } from '../helpers/mcp.js';
import { authorizeMcpClient, BrowserOAuthProvider, connectWithOAuth, recordingFetch, startCallbackServer } from '../helpers/mcp-oauth.js';
import { PROCESS_ALICE } from '../helpers/registry-files.js';

/**
 * The official MCP SDK client (its `auth()` flow, driven through an OAuthClientProvider)
 * against the example MCP server and our server, with a client registered beforehand in
 * CLIENTS_FILE as an operator would for an MCP client without registration: a public
 * client, registered without scope, with a loopback redirect URI without port (RFC 8252).
 * Discovery through RFC 9728, PKCE S256, `resource` on every request, aud = the MCP server.
 */
const DESKTOP = {
  client_id: 'mcp-desktop',
  client_name: 'MCP Desktop',
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  redirect_uris: ['http://127.0.0.1/callback'],
};
const CLIENT_METADATA = { client_name: 'MCP Desktop', redirect_uris: [] as string[], token_endpoint_auth_method: 'none' };

t.test('the MCP SDK client, registered beforehand, through discovery, login and consent in Chromium', async (t) => {
  const [a, b, unregistered] = [await mcpServerAddress(), await mcpServerAddress(), await mcpServerAddress()];
  const as = await startAuthorizationServer(t, { clients: [DESKTOP], resources: [a.resource, b.resource] });
  const mcpA = await startExampleMcpServer(t, as.issuer, a);
  await startExampleMcpServer(t, as.issuer, b);
  const browser = await launchChromium(t);
  const callback = await startCallbackServer(t);
  const provider = () =>
    new BrowserOAuthProvider({
      browser,
      callback,
      clientMetadata: { ...CLIENT_METADATA, redirect_uris: [callback.redirectUri] },
      registered: { client_id: DESKTOP.client_id },
    });

  t.test('connect: 401, RFC 9728 discovery, authorization with PKCE and resource, code exchange, tools', async (t) => {
    const client = provider();
    const session = await connectWithOAuth(t, a.resource, client, callback);

    const [authorizationUrl] = client.authorizationUrls;
    const sent = Object.fromEntries(authorizationUrl?.searchParams ?? []);
    t.equal(authorizationUrl?.origin + (authorizationUrl?.pathname ?? ''), `${as.issuer}/oauth2/authorize`, 'from our RFC 8414 metadata');
    t.match(sent, {
      response_type: 'code',
      client_id: DESKTOP.client_id,
      code_challenge_method: 'S256',
      code_challenge: /^[A-Za-z0-9_-]{43}$/,
      redirect_uri: callback.redirectUri,
      resource: a.resource,
      scope: TOOLS_SCOPE,
    });
    t.match(client.consentTexts[0], 'Example MCP server', 'the consent page names the resource');
    t.equal(session.arrived?.get('iss'), as.issuer, 'RFC 9207 iss at the redirect URI');

    const steps = session.requests.map((r) => `${r.method} ${r.url} ${r.status}`);
    t.same(steps.slice(0, 3), [
      `POST ${a.resource} 401`,
      `GET ${mcpA.metadataUrl} 200`,
      `GET ${as.issuer}/.well-known/oauth-authorization-server 200`,
    ]);
    const exchange = session.requests.find((r) => r.url === `${as.issuer}/oauth2/token`);
    t.match(Object.fromEntries(new URLSearchParams(exchange?.body)), {
      grant_type: 'authorization_code',
      client_id: DESKTOP.client_id,
      redirect_uri: callback.redirectUri,
      resource: a.resource,
      code_verifier: /^[A-Za-z0-9._~-]{43,128}$/,
    });
    t.equal(exchange?.status, 200);

    const tokens = client.tokens();
    t.match(decodeJwt(tokens?.access_token ?? ''), {
      aud: a.resource,
      sub: PROCESS_ALICE.sub,
      client_id: DESKTOP.client_id,
      scope: TOOLS_SCOPE,
    });
    const whoami = await session.client.callTool({ name: 'whoami' });
    t.same(whoami.structuredContent, { sub: PROCESS_ALICE.sub, client_id: DESKTOP.client_id, scope: TOOLS_SCOPE, aud: a.resource });

    t.test('the SDK refreshes with resource; a refresh naming another resource is invalid_target', async (t) => {
      const refreshes: Parameters<typeof recordingFetch>[0] = [];
      t.equal(await auth(client, { serverUrl: a.resource, fetchFn: recordingFetch(refreshes) }), 'AUTHORIZED');
      const refresh = refreshes.find((r) => r.url === `${as.issuer}/oauth2/token`);
      t.match(Object.fromEntries(new URLSearchParams(refresh?.body)), { grant_type: 'refresh_token', resource: a.resource });
      t.equal(decodeJwt(client.tokens()?.access_token ?? '').aud, a.resource);

      const refreshToken = client.tokens()?.refresh_token ?? '';
      const widen = await fetch(`${as.issuer}/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: DESKTOP.client_id,
          resource: b.resource,
        }),
      });
      t.equal(widen.status, 400);
      t.same(await widen.json(), { error: 'invalid_target', error_description: 'resource was not part of this authorization grant' });
      t.equal(await auth(client, { serverUrl: a.resource }), 'AUTHORIZED', 'the refused widening did not rotate the token away');
    });

    t.test("the token for A is refused by B's verifier, with B's challenge", async (t) => {
      const res = await fetch(b.resource, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${client.tokens()?.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      t.equal(res.status, 401);
      t.equal(
        res.headers.get('www-authenticate'),
        `Bearer realm="${b.resource}", error="invalid_token", error_description="the access token's aud claim is not valid here", resource_metadata="http://127.0.0.1:${b.port}/.well-known/oauth-protected-resource/mcp"`,
      );
    });
  });

  t.test('an MCP server that is not a registered resource: invalid_target at the redirect URI, nothing issued', async (t) => {
    await startExampleMcpServer(t, as.issuer, unregistered);
    const client = provider();
    const { arrived, requests } = await authorizeMcpClient(unregistered.resource, client, callback);
    t.equal(client.authorizationUrls[0]?.searchParams.get('resource'), unregistered.resource);
    t.same(Object.fromEntries(arrived ?? []), {
      error: 'invalid_target',
      error_description: 'resource is not registered at this authorization server',
      iss: as.issuer,
    });
    t.same(client.consentTexts, [], 'the person was never asked');
    t.notOk(
      requests.some((r) => r.url === `${as.issuer}/oauth2/token`),
      'no token request',
    );
  });
});

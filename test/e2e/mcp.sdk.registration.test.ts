import { decodeJwt } from 'jose';
import t from 'tap';
import { launchChromium } from '../helpers/chromium.js';
import { mcpServerAddress, startAuthorizationServer, startExampleMcpServer, TOOLS_SCOPE } from '../helpers/mcp.js';
import { BrowserOAuthProvider, connectWithOAuth, startCallbackServer } from '../helpers/mcp-oauth.js';
import { PROCESS_ALICE } from '../helpers/registry-files.js';

/**
 * The official MCP SDK client registering itself (RFC 7591) at the registration endpoint
 * our metadata announces, because it has no client_id and no metadata document URL; then
 * login and consent in Chromium, PKCE and `resource`, the tools with aud = the MCP server.
 * As a public client (what MCP desktop clients register) and as a confidential one (the
 * SDK then authenticates with the secret it was given).
 */
t.test('the MCP SDK client, dynamically registered, through login and consent in Chromium', async (t) => {
  const mcp = await mcpServerAddress();
  const as = await startAuthorizationServer(t, { resources: [mcp.resource], env: { DYNAMIC_CLIENT_REGISTRATION: 'open' } });
  await startExampleMcpServer(t, as.issuer, mcp);
  const browser = await launchChromium(t);
  const callback = await startCallbackServer(t);
  const registration = `${as.issuer}/oauth2/register`;

  const flows = [
    { kind: 'public', method: 'none' },
    { kind: 'confidential', method: 'client_secret_basic' },
  ] as const;
  for (const { kind, method } of flows) {
    t.test(`a ${kind} client (${method})`, async (t) => {
      const client = new BrowserOAuthProvider({
        browser,
        callback,
        clientMetadata: {
          client_name: `E2E MCP client (${kind})`,
          redirect_uris: [callback.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: method,
        },
      });
      const session = await connectWithOAuth(t, mcp.resource, client, callback);

      const metadata = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      t.equal(metadata.registration_endpoint, registration, 'what the SDK registered at');
      const registered = session.requests.find((r) => r.url === registration);
      t.equal(registered?.method, 'POST');
      t.equal(registered?.status, 201);
      t.match(JSON.parse(registered?.body ?? '{}'), { redirect_uris: [callback.redirectUri], token_endpoint_auth_method: method });
      const info = client.clientInformation();
      t.type(info?.client_id, 'string');
      t.equal(info?.client_secret === undefined, kind === 'public', 'a secret only for the confidential client');

      t.match(Object.fromEntries(client.authorizationUrls[0]?.searchParams ?? []), {
        client_id: info?.client_id,
        code_challenge_method: 'S256',
        resource: mcp.resource,
        scope: TOOLS_SCOPE,
      });
      const exchange = session.requests.find((r) => r.url === `${as.issuer}/oauth2/token`);
      t.equal(exchange?.status, 200);
      const sent = Object.fromEntries(new URLSearchParams(exchange?.body));
      t.match(sent, { grant_type: 'authorization_code', resource: mcp.resource });
      if (kind === 'public') {
        t.equal(sent.client_id, info?.client_id, 'a public client names itself in the body');
        t.equal(exchange?.authorization, undefined);
      } else {
        t.equal(exchange?.authorization, 'Basic', 'the SDK authenticates with the secret it registered');
        t.notOk('client_secret' in sent);
      }

      t.match(decodeJwt(client.tokens()?.access_token ?? ''), { aud: mcp.resource, client_id: info?.client_id, sub: PROCESS_ALICE.sub });
      const whoami = await session.client.callTool({ name: 'whoami' });
      t.same(whoami.structuredContent, { sub: PROCESS_ALICE.sub, client_id: info?.client_id, scope: TOOLS_SCOPE, aud: mcp.resource });
    });
  }

  t.test('a registration with a javascript: redirect URI is refused: invalid_redirect_uri', async (t) => {
    const res = await fetch(registration, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Evil',
        redirect_uris: ['javascript:alert(document.cookie)'],
        token_endpoint_auth_method: 'none',
      }),
    });
    t.equal(res.status, 400);
    t.equal(res.headers.get('cache-control'), 'no-store');
    t.same(await res.json(), {
      error: 'invalid_redirect_uri',
      error_description: 'redirect_uris[0]: the scheme javascript: is not allowed for redirect URIs',
    });
  });
});

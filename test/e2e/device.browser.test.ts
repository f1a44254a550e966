import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import t from 'tap';
import { launchChromium } from '../helpers/chromium.js';
import { mcpServerAddress, startAuthorizationServer, startExampleMcpServer, TOOLS_SCOPE } from '../helpers/mcp.js';
import { PROCESS_ALICE } from '../helpers/registry-files.js';

/**
 * The device authorization grant (RFC 8628) end to end: the built server as a process, a CLI
 * that registered itself with only the device grant (openid-client's dynamicClientRegistration,
 * no redirect URI), Chromium as the user's browser at /device (the code typed, the sign-in, the
 * consent page with its warning), openid-client polling for the tokens it validates, and the
 * official MCP SDK calling a tool of examples/mcp-server with the token. Then
 * verification_uri_complete (the code filled in, confirmed) and a denial the library sees, and
 * oauth4webapi's poll of a code Chromium approved.
 */

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const WARNING = 'Only continue if you started this sign-in yourself on a device you own; never enter a code someone sent you.';

t.test('a CLI signs in with the device flow, the user approving in Chromium; the MCP SDK calls a tool with the token', async (t) => {
  const address = await mcpServerAddress();
  const as = await startAuthorizationServer(t, { resources: [address.resource], env: { DYNAMIC_CLIENT_REGISTRATION: 'open' } });
  const mcp = await startExampleMcpServer(t, as.issuer, address);
  const execute = [client.allowInsecureRequests];
  const config = await client.dynamicClientRegistration(
    new URL(as.issuer),
    { client_name: 'Terminal agent', grant_types: [DEVICE_GRANT], token_endpoint_auth_method: 'none' },
    client.None(),
    { execute },
  );
  t.same(config.clientMetadata().redirect_uris, [], 'registered without redirect URIs');
  const browser = await launchChromium(t);
  const context = await browser.newContext();

  t.test('Chromium: the code typed at verification_uri, a sign-in, Allow; openid-client gets the tokens', async (t) => {
    const started = await client.initiateDeviceAuthorization(config, { scope: `openid ${TOOLS_SCOPE}`, resource: mcp.resource });
    t.equal(started.verification_uri, `${as.issuer}/device`);
    // The library waits `interval` (5 s) before it polls: the user approves meanwhile.
    const polled = client.pollDeviceAuthorizationGrant(config, started);
    const page = await context.newPage();
    await page.goto(started.verification_uri);
    t.equal(await page.title(), 'Connect a device');
    await page.getByLabel('Code').fill(started.user_code.toLowerCase().replace('-', ' '));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForSelector('text=Sign in');
    t.match(await page.textContent('main'), 'to continue to Terminal agent');
    await page.getByLabel('Username').fill(PROCESS_ALICE.username);
    await page.getByLabel('Password', { exact: true }).fill(PROCESS_ALICE.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('text=Allow access?');
    const consent = (await page.textContent('main')) as string;
    t.match(consent, 'Terminal agent asks for access to your account from a device');
    t.match(consent, `Code on the device: ${started.user_code}`);
    t.match(consent, WARNING);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForSelector('text=Device connected');
    t.match(await page.textContent('main'), 'Return to your device');

    const tokens = await polled;
    t.match(tokens.claims(), { sub: PROCESS_ALICE.sub, aud: config.clientMetadata().client_id, iss: as.issuer });
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${as.issuer}/.well-known/jwks.json`)), {
      issuer: as.issuer,
      audience: mcp.resource,
    });
    t.match(payload, { sub: PROCESS_ALICE.sub, scope: TOOLS_SCOPE });

    const sdk = new Client({ name: 'device-flow-cli', version: '1.0.0' });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(mcp.resource), {
        requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    t.teardown(() => sdk.close());
    const whoami = await sdk.callTool({ name: 'whoami' });
    t.same(whoami.structuredContent, {
      sub: PROCESS_ALICE.sub,
      client_id: config.clientMetadata().client_id,
      scope: TOOLS_SCOPE,
      aud: mcp.resource,
    });
  });

  t.test('verification_uri_complete: the code filled in and confirmed; Deny; openid-client sees access_denied', async (t) => {
    const started = await client.initiateDeviceAuthorization(config, { scope: TOOLS_SCOPE, resource: mcp.resource });
    const page = await context.newPage();
    await page.goto(started.verification_uri_complete as string);
    t.equal(await page.getByLabel('Code').inputValue(), started.user_code);
    t.match(await page.textContent('main'), 'Check that this is the code your device shows, then continue.');
    await page.getByRole('button', { name: 'Continue' }).click();
    // Signed in already (the session of the first test): straight to the consent page.
    await page.waitForSelector('text=Allow access?');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForSelector('text=Access denied');
    await t.rejects(client.pollDeviceAuthorizationGrant(config, started), {
      name: 'ResponseBodyError',
      error: 'access_denied',
      error_description: 'the user denied the request',
    });
  });

  t.test('oauth4webapi polls a code Chromium approved (the first poll is never too soon)', async (t) => {
    const options = { [oauth.allowInsecureRequests]: true } as const;
    const server = await oauth.processDiscoveryResponse(new URL(as.issuer), await oauth.discoveryRequest(new URL(as.issuer), options));
    const registered: oauth.Client = { client_id: config.clientMetadata().client_id };
    const started = await oauth.processDeviceAuthorizationResponse(
      server,
      registered,
      await oauth.deviceAuthorizationRequest(server, registered, oauth.None(), { scope: TOOLS_SCOPE, resource: mcp.resource }, options),
    );
    const page = await context.newPage();
    await page.goto(started.verification_uri_complete as string);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForSelector('text=Device connected');
    const result = await oauth.processDeviceCodeResponse(
      server,
      registered,
      await oauth.deviceCodeGrantRequest(server, registered, oauth.None(), started.device_code, options),
    );
    t.equal(result.token_type, 'bearer');
    t.equal(result.scope, TOOLS_SCOPE);
  });
});

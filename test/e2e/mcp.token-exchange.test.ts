import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { freePort } from '../../harness/ports.js';
import { startServerProcess } from '../../harness/process.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { mcpServerAddress, startAuthorizationServer, startExampleMcpServer, TOOLS_SCOPE } from '../helpers/mcp.js';
import { PROCESS_ALICE } from '../helpers/registry-files.js';

/**
 * RFC 8693 end to end, with processes: the example MCP server (examples/mcp-server) gets a
 * user's token, exchanges it at the authorization server for one for a downstream API (the
 * example resource server), and calls that API, which verifies the new token and sees who
 * acts for the user. The official MCP SDK client calls the tool.
 */
const SECRET = 'mcp-exchange-secret-0123456789abcdefghijklmnop';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

t.test('an MCP server calls a downstream API for the user with an exchanged token', async (t) => {
  const mcp = await mcpServerAddress();
  const apiPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}/api`;
  const clients = [
    // The MCP client, here a password-grant app so the test needs no browser.
    { client_id: 'agent', client_secret_hash: hashClientSecret(SECRET), grant_types: ['password'], scope: `${TOOLS_SCOPE} read` },
    // The MCP server's own client: it exchanges the tokens sent to it for the API.
    {
      client_id: 'mcp-server',
      client_secret_hash: hashClientSecret(SECRET),
      grant_types: [TOKEN_EXCHANGE],
      token_exchange: { subject_audiences: [mcp.resource], target_resources: [api] },
    },
  ];
  const as = await startAuthorizationServer(t, {
    clients,
    resources: [
      { resource: mcp.resource, scope: `${TOOLS_SCOPE} read`, name: 'Example MCP server' },
      { resource: api, scope: 'read', name: 'Example API' },
    ],
  });
  await startServerProcess(
    t,
    { PORT: String(apiPort), ISSUER: as.issuer, AUDIENCE: api, LOG_LEVEL: 'warn' },
    { script: 'examples/resource-server.js', readyPath: '/api/me', anyStatus: true },
  );
  const server = await startExampleMcpServer(t, as.issuer, mcp, {
    DOWNSTREAM_URL: `http://127.0.0.1:${apiPort}/api/me`,
    DOWNSTREAM_RESOURCE: api,
    TOKEN_EXCHANGE_CLIENT_ID: 'mcp-server',
    TOKEN_EXCHANGE_CLIENT_SECRET: SECRET,
  });

  const issued = await fetch(`${as.issuer}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`agent:${SECRET}`).toString('base64')}` },
    body: new URLSearchParams({
      grant_type: 'password',
      username: PROCESS_ALICE.username,
      password: PROCESS_ALICE.password,
      scope: `${TOOLS_SCOPE} read`,
      resource: mcp.resource,
    }),
  });
  t.equal(issued.status, 200);
  const userToken = ((await issued.json()) as { access_token: string }).access_token;

  // The API refuses the user's token itself: it was issued for the MCP server (no passthrough).
  const passthrough = await fetch(`http://127.0.0.1:${apiPort}/api/me`, { headers: { authorization: `Bearer ${userToken}` } });
  t.equal(passthrough.status, 401);

  const client = new Client({ name: 'token-exchange-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(server.resource), {
    requestInit: { headers: { authorization: `Bearer ${userToken}` } },
  });
  await client.connect(transport);
  t.teardown(() => client.close());
  const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  t.same(tools, ['call_downstream', 'echo', 'whoami']);
  const result = await client.callTool({ name: 'call_downstream', arguments: {} });
  t.same(
    result.structuredContent,
    { sub: PROCESS_ALICE.sub, scope: 'read', act: { sub: 'mcp-server' } },
    'the API sees the user and the actor',
  );
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { mcpServerAddress, startAuthorizationServer, startExampleMcpServer, TOOLS_SCOPE } from '../helpers/mcp.js';

/**
 * examples/mcp-server as a process, protected by the verifier: RFC 9728 metadata, the
 * challenges that point to it, audience = resource, and the official SDK client calling
 * its tools with a token for it. Two instances, A and B, are two resources.
 */
const SECRET = 'mcp-robot-secret-0123456789abcdefghijklmnopqr';
/** `robot` may have the tools scope; `reader` only `read`, which the MCP servers do not accept. */
const CLIENTS = [
  { client_id: 'robot', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'], scope: `${TOOLS_SCOPE} read` },
  { client_id: 'reader', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'], scope: 'read' },
];

t.test('the example MCP server (examples/mcp-server) with the verifier', async (t) => {
  const [a, b] = [await mcpServerAddress(), await mcpServerAddress()];
  const as = await startAuthorizationServer(t, { clients: CLIENTS, resources: [a.resource, b.resource] });
  const [mcpA, mcpB] = [await startExampleMcpServer(t, as.issuer, a), await startExampleMcpServer(t, as.issuer, b)];

  const token = async (params: Record<string, string>, clientId = 'robot') => {
    const res = await fetch(`${as.issuer}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${SECRET}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...params }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  const tokenFor = async (resource: string) => {
    const res = await token({ resource, scope: TOOLS_SCOPE });
    t.equal(res.status, 200);
    return res.body.access_token as string;
  };
  const initialize = (url: string, authorization?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
      }),
    });

  t.test('without a token: 401 whose challenge names the RFC 9728 metadata, and the metadata names us', async (t) => {
    const res = await initialize(mcpA.resource);
    t.equal(res.status, 401);
    t.equal(
      res.headers.get('www-authenticate'),
      `Bearer realm="${a.resource}", scope="${TOOLS_SCOPE}", resource_metadata="${mcpA.metadataUrl}"`,
    );
    t.same(await res.json(), { error: 'invalid_token', error_description: 'an access token is required' });

    const metadata = await fetch(mcpA.metadataUrl);
    t.equal(metadata.status, 200);
    t.equal(metadata.headers.get('access-control-allow-origin'), '*');
    t.same(await metadata.json(), {
      resource: a.resource,
      authorization_servers: [as.issuer],
      scopes_supported: [TOOLS_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'Example MCP server',
    });
    const asMetadata = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    t.equal(asMetadata.issuer, as.issuer, 'authorization_servers[0] is our issuer, exactly');
    t.same(asMetadata.protected_resources, [a.resource, b.resource, `${as.issuer}/admin/v1`], 'and the admin API every server has');
  });

  t.test('the official SDK client lists and calls the tools with a token for the server', async (t) => {
    const accessToken = await tokenFor(a.resource);
    t.equal(decodeJwt(accessToken).aud, a.resource, 'aud is the MCP server');
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(a.resource), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    });
    await client.connect(transport);
    t.teardown(() => client.close());
    const { tools } = await client.listTools();
    t.same(tools.map((tool) => tool.name).sort(), ['echo', 'whoami']);
    const whoami = await client.callTool({ name: 'whoami' });
    t.same(whoami.structuredContent, { sub: 'robot', client_id: 'robot', scope: TOOLS_SCOPE, aud: a.resource });
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    t.same(echo.content, [{ type: 'text', text: 'hello' }]);
  });

  t.test("a token for resource A is refused by resource B: 401 with B's challenge", async (t) => {
    const res = await initialize(mcpB.resource, `Bearer ${await tokenFor(a.resource)}`);
    t.equal(res.status, 401);
    t.equal(
      res.headers.get('www-authenticate'),
      `Bearer realm="${b.resource}", error="invalid_token", error_description="the access token's aud claim is not valid here", resource_metadata="${mcpB.metadataUrl}"`,
    );
    t.same(await res.json(), { error: 'invalid_token', error_description: "the access token's aud claim is not valid here" });
    t.equal((await initialize(mcpB.resource, `Bearer ${await tokenFor(b.resource)}`)).status, 200, 'its own token is accepted');
  });

  t.test('a token for the server without its scope: 403 insufficient_scope', async (t) => {
    const res = await token({ resource: a.resource, scope: 'read' });
    t.equal(res.status, 400, 'the resource accepts only mcp:tools');
    t.same(res.body, { error: 'invalid_target', error_description: 'scope not offered by the requested resources: read' });
    const scopeless = await token({ resource: a.resource }, 'reader');
    t.equal(decodeJwt(scopeless.body.access_token as string).aud, a.resource);
    const weak = await initialize(mcpA.resource, `Bearer ${scopeless.body.access_token}`);
    t.equal(weak.status, 403);
    t.equal(
      weak.headers.get('www-authenticate'),
      `Bearer realm="${a.resource}", error="insufficient_scope", error_description="the access token lacks the scope ${TOOLS_SCOPE}", scope="${TOOLS_SCOPE}", resource_metadata="${mcpA.metadataUrl}"`,
    );
  });

  t.test('an unknown resource gets no token: invalid_target', async (t) => {
    const res = await token({ resource: 'http://127.0.0.1:1/mcp', scope: TOOLS_SCOPE });
    t.equal(res.status, 400);
    t.same(res.body, { error: 'invalid_target', error_description: 'resource is not registered at this authorization server' });
  });

  t.test('GET /mcp: 405 (no server-initiated stream in stateless mode)', async (t) => {
    const res = await fetch(mcpA.resource, { headers: { accept: 'text/event-stream' } });
    t.equal(res.status, 405);
    t.equal(res.headers.get('allow'), 'POST');
  });
});

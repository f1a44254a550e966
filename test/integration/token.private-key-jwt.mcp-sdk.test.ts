import { PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import t from 'tap';
import { exampleMcpApp } from '../../examples/mcp-server/app.js';
import { freePort } from '../../harness/ports.js';
import { CLIENT_ASSERTION_TYPE } from '../../src/oauth/client-assertion.js';
import { clientKey, jwksOf } from '../helpers/client-keys.js';
import { mcpServerAddress, TOOLS_SCOPE } from '../helpers/mcp.js';
import { type RecordedRequest, recordingFetch } from '../helpers/mcp-oauth.js';
import { buildTestServer } from '../helpers/server.js';

/**
 * The official MCP SDK's PrivateKeyJwtProvider (client_credentials with private_key_jwt,
 * @modelcontextprotocol/sdk/client/auth-extensions) as an MCP client uses it: connecting to
 * the example MCP server (examples/mcp-server/app.ts, in this process) gets a 401, the SDK
 * finds us through the server's RFC 9728 metadata, signs its own assertion (no kid, typ JWT,
 * aud our issuer, 300 s of life) and asks our token endpoint for a token for that server;
 * then a tool answers with what the token says. Both servers listen on loopback.
 */

t.test('MCP SDK: PrivateKeyJwtProvider gets a client_credentials token from a server whose only client is that machine', async (t) => {
  const key = await clientKey('ES256', 'mcp-robot-1');
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const mcp = await mcpServerAddress();
  const as = await buildTestServer(t, {
    // It names our issuer identifier alone: it passes CLIENT_ASSERTION_STRICT_AUDIENCE.
    env: { ISSUER: issuer, CLIENT_ASSERTION_STRICT_AUDIENCE: 'true' },
    clients: [
      {
        client_id: 'mcp-robot',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: jwksOf(key),
        grant_types: ['client_credentials'],
        scope: TOOLS_SCOPE,
      },
    ],
    resources: [{ resource: mcp.resource, scope: TOOLS_SCOPE, name: 'Example MCP server' }],
  });
  // The SDK signs with the real clock: the server's follows it here.
  as.clock.now = Date.now();
  await as.app.listen({ port, host: '127.0.0.1' });
  const mcpApp = await exampleMcpApp({ issuer, resource: mcp.resource });
  t.teardown(() => mcpApp.close());
  await mcpApp.listen({ port: mcp.port, host: '127.0.0.1' });

  const provider = new PrivateKeyJwtProvider({
    clientId: 'mcp-robot',
    privateKey: key.privateJwk as Record<string, unknown>,
    algorithm: 'ES256',
    scope: TOOLS_SCOPE,
    expectedIssuer: issuer,
  });
  const requests: RecordedRequest[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(mcp.resource), { authProvider: provider, fetch: recordingFetch(requests) });
  const client = new Client({ name: 'robot', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());

  // The only client is a machine: the metadata the SDK accepted still names the authorization endpoint (RFC 8414 §2).
  const metadata = requests.find((r) => r.url === `${issuer}/.well-known/oauth-authorization-server`);
  t.equal(metadata?.status, 200, 'the SDK read our RFC 8414 metadata');
  const tokenRequests = requests.filter((r) => r.url === `${issuer}/oauth2/token`);
  t.equal(tokenRequests.length, 1, 'one token request');
  const sent = Object.fromEntries(new URLSearchParams(tokenRequests[0]?.body));
  t.same(Object.keys(sent).sort(), ['client_assertion', 'client_assertion_type', 'grant_type', 'resource', 'scope']);
  t.match(sent, {
    grant_type: 'client_credentials',
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    resource: mcp.resource,
    scope: TOOLS_SCOPE,
  });
  t.equal(tokenRequests[0]?.authorization, undefined, 'no other credentials');
  t.equal(tokenRequests[0]?.status, 200);
  const assertion = sent.client_assertion as string;
  t.same(decodeProtectedHeader(assertion), { alg: 'ES256', typ: 'JWT' }, 'no kid: the client has one key for ES256');
  const claims = decodeJwt(assertion);
  t.match(claims, { iss: 'mcp-robot', sub: 'mcp-robot', aud: issuer, jti: /./ });
  t.equal((claims.exp as number) - (claims.iat as number), 300, "the SDK's default life, within our bound");

  const accessToken = provider.tokens()?.access_token as string;
  t.match(decodeJwt(accessToken), { iss: issuer, sub: 'mcp-robot', client_id: 'mcp-robot', aud: mcp.resource, scope: TOOLS_SCOPE });
  const whoami = await client.callTool({ name: 'whoami' });
  t.same(whoami.structuredContent, { sub: 'mcp-robot', client_id: 'mcp-robot', scope: TOOLS_SCOPE, aud: mcp.resource });
});

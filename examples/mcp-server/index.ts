import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import Fastify from 'fastify';
import { protectedResource, requireScope } from '@oauth2-token-service/verifier/fastify';
import { createVerifier } from '@oauth2-token-service/verifier';
import { downstreamFromEnvironment } from './downstream.js';
import { exampleMcpServer, TOOLS_SCOPE } from './tools.js';

/**
 * An example MCP server (official SDK, Streamable HTTP transport, stateless) on /mcp,
 * protected by our verifier: tokens must be issued for RESOURCE (its own URL, the `aud`
 * MCP clients ask for) with the scope mcp:tools. It publishes its RFC 9728 metadata, so
 * MCP clients find the authorization server from the 401 alone.
 *   ISSUER=http://localhost:3000 PORT=4100 RESOURCE=http://localhost:4100/mcp npm run example:mcp-server
 * With DOWNSTREAM_URL (and DOWNSTREAM_RESOURCE, TOKEN_EXCHANGE_CLIENT_ID and _SECRET) its tool
 * call_downstream calls that API for the user, with a token exchanged for theirs (downstream.ts).
 * In your own service: import { createVerifier } from '@oauth2-token-service/verifier'.
 */
const port = Number(process.env.PORT ?? 4100);
const issuer = process.env.ISSUER ?? 'http://localhost:3000';
const resource = process.env.RESOURCE ?? `http://localhost:${port}/mcp`;
const verifier = createVerifier({ issuer, resource });
const downstream = downstreamFromEnvironment(process.env, issuer);
const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } });

await app.register(protectedResource, { verifier, scopesSupported: [TOOLS_SCOPE], resourceName: 'Example MCP server' });

app.post('/mcp', { preHandler: requireScope(verifier, TOOLS_SCOPE) }, async (request, reply) => {
  const claims = request.accessToken;
  if (!claims) throw new Error('requireScope sets the access token');
  // Stateless (no sessionIdGenerator): a server and a transport per request, no session to keep.
  const server = exampleMcpServer(downstream);
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
  reply.hijack();
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  const auth = {
    token: (request.headers.authorization ?? '').replace(/^Bearer +/i, ''),
    clientId: claims.client_id,
    scopes: claims.scope ? claims.scope.split(' ') : [],
    expiresAt: claims.exp,
    resource: new URL(resource),
    extra: { sub: claims.sub, aud: claims.aud },
  };
  await transport.handleRequest(Object.assign(request.raw, { auth }), reply.raw, request.body);
});

// No server-initiated stream and no session in stateless mode: the MCP Streamable HTTP
// transport lets a server answer GET (and DELETE) with 405.
for (const method of ['GET', 'DELETE'] as const) {
  app.route({
    method,
    url: '/mcp',
    handler: async (_request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }),
  });
}

try {
  await app.listen({ port, host: process.env.HOST ?? '127.0.0.1' });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}

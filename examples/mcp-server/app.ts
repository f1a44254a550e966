import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { protectedResource, requireScope } from '@oauth2-token-service/verifier/fastify';
import { createVerifier } from '@oauth2-token-service/verifier';
import type { Downstream } from './downstream.js';
import { exampleMcpServer, TOOLS_SCOPE } from './tools.js';

export interface ExampleMcpAppOptions {
  /** The authorization server whose tokens it trusts. */
  readonly issuer: string;
  /** Its own URL: the `aud` its tokens must carry, and what its RFC 9728 metadata names. */
  readonly resource: string;
  /** The API `call_downstream` calls for the user (downstream.ts); no such tool without it. */
  readonly downstream?: Downstream | undefined;
  readonly logger?: FastifyServerOptions['logger'];
}

/**
 * The example MCP server as a Fastify app that does not listen yet (index.ts listens; tests
 * may run it in their own process): the official SDK's Streamable HTTP transport, stateless,
 * on /mcp, behind our verifier, and its RFC 9728 metadata.
 */
export async function exampleMcpApp(options: ExampleMcpAppOptions): Promise<FastifyInstance> {
  const { resource, downstream } = options;
  const verifier = createVerifier({ issuer: options.issuer, resource });
  const app = Fastify({ logger: options.logger ?? false });

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
  return app;
}

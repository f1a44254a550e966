import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Downstream } from './downstream.js';

/** The scope the example's tools require; listed in its RFC 9728 metadata (`scopes_supported`). */
export const TOOLS_SCOPE = 'mcp:tools';

/**
 * The MCP server behind /mcp: `whoami` answers with what the verified access token says
 * (the SDK hands it to tools as `authInfo`); `echo` sends its text back; with a downstream
 * API configured, `call_downstream` calls it for the user through token exchange.
 */
export function exampleMcpServer(downstream?: Downstream): McpServer {
  const server = new McpServer({ name: 'oauth2-token-service-example', version: '1.0.0' });
  server.registerTool(
    'whoami',
    { title: 'Who am I', description: "The access token's subject, client, scopes and audience" },
    async (extra) => {
      const auth = extra.authInfo;
      const identity = {
        sub: auth?.extra?.sub,
        client_id: auth?.clientId,
        scope: auth?.scopes.join(' '),
        aud: auth?.extra?.aud,
      };
      return { content: [{ type: 'text', text: JSON.stringify(identity) }], structuredContent: identity };
    },
  );
  server.registerTool(
    'echo',
    { title: 'Echo', description: 'Returns the text it is given', inputSchema: { text: z.string().max(10_000) } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  if (downstream) {
    server.registerTool(
      'call_downstream',
      { title: 'Call the downstream API', description: "Calls another API as the user, with a token exchanged for the user's" },
      async (extra) => {
        const answer = (await downstream.call(extra.authInfo?.token ?? '')) as Record<string, unknown>;
        return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
      },
    );
  }
  return server;
}

import { exampleMcpApp } from './app.js';
import { downstreamFromEnvironment } from './downstream.js';

/**
 * An example MCP server (official SDK, Streamable HTTP transport, stateless) on /mcp,
 * protected by our verifier: tokens must be issued for RESOURCE (its own URL, the `aud`
 * MCP clients ask for) with the scope mcp:tools. It publishes its RFC 9728 metadata, so
 * MCP clients find the authorization server from the 401 alone (the app: app.ts).
 *   ISSUER=http://localhost:3000 PORT=4100 RESOURCE=http://localhost:4100/mcp npm run example:mcp-server
 * With DOWNSTREAM_URL (and DOWNSTREAM_RESOURCE, TOKEN_EXCHANGE_CLIENT_ID and _SECRET) its tool
 * call_downstream calls that API for the user, with a token exchanged for theirs (downstream.ts).
 * In your own service: import { createVerifier } from '@oauth2-token-service/verifier'.
 */
const port = Number(process.env.PORT ?? 4100);
const issuer = process.env.ISSUER ?? 'http://localhost:3000';
const resource = process.env.RESOURCE ?? `http://localhost:${port}/mcp`;
const app = await exampleMcpApp({
  issuer,
  resource,
  downstream: downstreamFromEnvironment(process.env, issuer),
  logger: { level: process.env.LOG_LEVEL ?? 'info' },
});

try {
  await app.listen({ port, host: process.env.HOST ?? '127.0.0.1' });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}

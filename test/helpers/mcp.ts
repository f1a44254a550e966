import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import { keysDirWithSigningKey, tempDir } from './keys.js';
import { freePort } from '../../harness/ports.js';
import { type ServerProcess, startServerProcess } from '../../harness/process.js';
import { writeRegistryFiles } from './registry-files.js';

/** The scope the example MCP server's tools require (examples/mcp-server/tools.ts). */
export const TOOLS_SCOPE = 'mcp:tools';

export interface ExampleMcpServer extends ServerProcess {
  /** Its resource identifier, the URL MCP clients connect to: http://127.0.0.1:<port>/mcp. */
  readonly resource: string;
  /** Where it publishes its RFC 9728 metadata. */
  readonly metadataUrl: string;
}

/** A port for an example MCP server, and the resource identifier it will have there. */
export async function mcpServerAddress(): Promise<{ port: number; resource: string }> {
  const port = await freePort();
  return { port, resource: `http://127.0.0.1:${port}/mcp` };
}

/** The built examples/mcp-server as a process, trusting tokens of `issuer` issued for its own URL (`env`: its downstream API). */
export async function startExampleMcpServer(
  t: Test,
  issuer: string,
  address: { port: number; resource: string },
  env: Record<string, string> = {},
): Promise<ExampleMcpServer> {
  const metadataPath = '/.well-known/oauth-protected-resource/mcp';
  const server = await startServerProcess(
    t,
    { PORT: String(address.port), ISSUER: issuer, RESOURCE: address.resource, LOG_LEVEL: 'warn', ...env },
    { script: 'examples/mcp-server/index.js', readyPath: metadataPath },
  );
  return { ...server, resource: address.resource, metadataUrl: `http://127.0.0.1:${address.port}${metadataPath}` };
}

/**
 * The built authorization server with these clients, alice, and RESOURCES_FILE registering
 * `resources` (each with the scope mcp:tools, or entries of their own); `env` adds variables
 * (registration, metadata documents).
 */
export async function startAuthorizationServer(
  t: Test,
  options: {
    clients?: readonly unknown[];
    resources: readonly (string | Record<string, unknown>)[];
    env?: Record<string, string>;
    /** A port chosen beforehand (an upstream provider must know our redirect URI first). */
    port?: number;
  },
): Promise<ServerProcess & { readonly issuer: string }> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const { clientsFile, usersFile } = await writeRegistryFiles(t, options.clients ?? []);
  const resourcesFile = join(await tempDir(t), 'resources.json');
  const resources = options.resources.map((resource) =>
    typeof resource === 'string' ? { resource, scope: TOOLS_SCOPE, name: 'Example MCP server' } : resource,
  );
  await writeFile(resourcesFile, JSON.stringify({ resources }));
  const server = await startServerProcess(t, {
    PORT: String(port),
    ISSUER: issuer,
    // An ES256 chain for access tokens and an RS256 chain for ID tokens, as `keys rotate` makes them.
    KEYS_DIR: await keysDirWithSigningKey(t, { algs: ['ES256', 'RS256'] }),
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    RESOURCES_FILE: resourcesFile,
    ...options.env,
  });
  return { ...server, issuer };
}

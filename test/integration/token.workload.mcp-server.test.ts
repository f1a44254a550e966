import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createVerifier } from '@oauth2-token-service/verifier';
import t from 'tap';
import { exampleMcpApp } from '../../examples/mcp-server/app.js';
import { freePort } from '../../harness/ports.js';
import { mcpServerAddress, TOOLS_SCOPE } from '../helpers/mcp.js';
import { buildTestServer } from '../helpers/server.js';
import { kubernetesIssuer } from '../helpers/workload-issuers.js';

/**
 * A job with a workload JWT calls a tool of the example MCP server (examples/mcp-server/app.ts,
 * in this process), as docs/workload-identity.md shows it: it trades its Kubernetes service
 * account token (a local issuer with discovery and JWKS, over HTTP) for an access token at our
 * token endpoint, without any client, then the official MCP SDK client sends that token as a
 * bearer token; the example's verifier (@oauth2-token-service/verifier, our JWKS over HTTP)
 * accepts it, and the tool answers with what the token says. All three listen on loopback.
 */

t.test('a Kubernetes workload gets a token without a client and calls a tool of the example MCP server', async (t) => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const mcp = await mcpServerAddress();
  const k8s = await kubernetesIssuer(t, { audience: issuer, nowSeconds: () => Math.floor(Date.now() / 1000) });
  const as = await buildTestServer(t, {
    env: { ISSUER: issuer },
    resources: [{ resource: mcp.resource, scope: TOOLS_SCOPE, name: 'Example MCP server' }],
    workloads: [
      {
        id: 'cluster',
        issuer: k8s.issuer,
        rules: [{ sub: 'system:serviceaccount:agents:*', resources: [mcp.resource], scope: TOOLS_SCOPE }],
      },
    ],
  });
  // The issuer signs with the real clock: the server's follows it here.
  as.clock.now = Date.now();
  await as.app.listen({ port, host: '127.0.0.1' });
  const mcpApp = await exampleMcpApp({ issuer, resource: mcp.resource });
  t.teardown(() => mcpApp.close());
  await mcpApp.listen({ port: mcp.port, host: '127.0.0.1' });

  // What a job runs (docs/workload-identity.md): its projected token in, an access token out.
  const response = await fetch(`${issuer}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await k8s.sign(),
      resource: mcp.resource,
    }),
  });
  t.equal(response.status, 200);
  const tokens = (await response.json()) as Record<string, unknown>;
  t.same(Object.keys(tokens).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
  t.match(tokens, { token_type: 'bearer', scope: TOOLS_SCOPE, expires_in: 3600 });
  const accessToken = tokens.access_token as string;

  // The project's verifier, as the MCP server runs it: our JWKS over HTTP, aud = the server.
  const claims = await createVerifier({ issuer, resource: mcp.resource }).verify(accessToken, { requiredScopes: [TOOLS_SCOPE] });
  t.match(claims, {
    iss: issuer,
    sub: 'system:serviceaccount:agents:deploy-agent',
    aud: mcp.resource,
    client_id: 'workload:cluster',
    iss_trust: 'cluster',
    scope: TOOLS_SCOPE,
  });

  const transport = new StreamableHTTPClientTransport(new URL(mcp.resource), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  const client = new Client({ name: 'deploy-job', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  const answer = await client.callTool({ name: 'whoami', arguments: {} });
  t.same(answer.structuredContent, {
    sub: 'system:serviceaccount:agents:deploy-agent',
    client_id: 'workload:cluster',
    scope: TOOLS_SCOPE,
    aud: mcp.resource,
  });
});

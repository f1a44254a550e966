import Fastify from 'fastify';
// Imported through the package's public exports, as resource servers do.
import { createVerifier, protectedResourceMetadata, protectedResourceMetadataUrl } from '@oauth2-token-service/verifier';
import { protectedResource, requireScope } from '@oauth2-token-service/verifier/fastify';
import t from 'tap';

const ISSUER = 'https://as.example.com';
const MCP = 'https://mcp.example.com/mcp';

t.test('protectedResourceMetadataUrl: the well-known suffix between host and path (RFC 9728 §3.1)', async (t) => {
  const table: [string, string][] = [
    [MCP, 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'],
    ['https://api.example.com/', 'https://api.example.com/.well-known/oauth-protected-resource'],
    ['https://api.example.com', 'https://api.example.com/.well-known/oauth-protected-resource'],
    ['https://api.example.com/v1/', 'https://api.example.com/.well-known/oauth-protected-resource/v1/'],
    ['https://files.example.com/store?tenant=a', 'https://files.example.com/.well-known/oauth-protected-resource/store?tenant=a'],
    ['https://mcp.example.com:8443/a/b', 'https://mcp.example.com:8443/.well-known/oauth-protected-resource/a/b'],
    ['http://127.0.0.1:4100/mcp', 'http://127.0.0.1:4100/.well-known/oauth-protected-resource/mcp'],
    ['http://[::1]:4100/mcp', 'http://[::1]:4100/.well-known/oauth-protected-resource/mcp'],
  ];
  for (const [resource, url] of table) t.equal(protectedResourceMetadataUrl(resource), url, resource);
  t.throws(() => protectedResourceMetadataUrl('/mcp'), new TypeError('the resource identifier must be an absolute URL, got "/mcp"'));
  t.throws(
    () => protectedResourceMetadataUrl('ftp://files.example.com/'),
    new TypeError('the resource identifier must be an https URL, got "ftp://files.example.com/"'),
  );
  t.throws(
    () => protectedResourceMetadataUrl(`${MCP}#x`),
    new TypeError(`the resource identifier must not have a fragment, got "${MCP}#x"`),
  );
});

t.test('protectedResourceMetadata: the RFC 9728 §2 document', async (t) => {
  t.same(protectedResourceMetadata({ resource: MCP, authorizationServers: [ISSUER] }), {
    resource: MCP,
    authorization_servers: [ISSUER],
    bearer_methods_supported: ['header'],
  });
  const full = protectedResourceMetadata({
    resource: MCP,
    authorizationServers: [ISSUER],
    scopesSupported: ['mcp:tools', 'mcp:files'],
    resourceName: 'Example MCP',
    resourceDocumentation: 'https://mcp.example.com/docs',
  });
  t.equal(
    JSON.stringify(full),
    '{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://as.example.com"],"scopes_supported":["mcp:tools","mcp:files"],' +
      '"bearer_methods_supported":["header"],"resource_name":"Example MCP","resource_documentation":"https://mcp.example.com/docs"}',
  );
  t.same(protectedResourceMetadata({ resource: MCP, authorizationServers: [ISSUER], scopesSupported: [] }).scopes_supported, []);
});

t.test('the protectedResource plugin serves the document at the URL the challenges name', async (t) => {
  const verifier = createVerifier({ issuer: `${ISSUER}/`, resource: MCP });
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(protectedResource, { verifier, scopesSupported: ['mcp:tools'], resourceName: 'Example MCP' });
  app.post('/mcp', { preHandler: requireScope(verifier, 'mcp:tools') }, async () => ({}));

  const challenge = (await app.inject({ method: 'POST', url: '/mcp' })).headers['www-authenticate'] as string;
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] as string;
  t.equal(metadataUrl, 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp');

  const res = await app.inject({ method: 'GET', url: new URL(metadataUrl).pathname });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(res.headers['access-control-allow-origin'], '*');
  t.equal(res.headers['cache-control'], 'public, max-age=300');
  t.equal(
    res.body,
    '{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://as.example.com"],"scopes_supported":["mcp:tools"],' +
      '"bearer_methods_supported":["header"],"resource_name":"Example MCP"}',
    'authorization_servers is the issuer as our metadata spells it',
  );
  const head = await app.inject({ method: 'HEAD', url: '/.well-known/oauth-protected-resource/mcp' });
  t.equal(head.statusCode, 200);
  t.equal(head.headers['access-control-allow-origin'], '*');
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })).statusCode, 404, 'only at its own path');
});

t.test('the plugin at the root of a resource without path', async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  await app.register(protectedResource, { verifier: createVerifier({ issuer: ISSUER, resource: 'https://api.example.com/' }) });
  const res = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { resource: 'https://api.example.com/', authorization_servers: [ISSUER], bearer_methods_supported: ['header'] });
});

t.test('the plugin refuses a verifier made with audience alone (it has no resource to describe)', async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  app.register(protectedResource, { verifier: createVerifier({ issuer: ISSUER, audience: ISSUER }) });
  await t.rejects(
    async () => app.ready().then(() => undefined),
    new TypeError('protectedResource needs a verifier made with createVerifier({ issuer, resource })'),
  );
});

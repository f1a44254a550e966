import Fastify from 'fastify';
// Imported through the package's public exports, as resource servers do.
import { createVerifier, TokenVerificationError, type Verifier } from '@oauth2-token-service/verifier';
import { requireScope } from '@oauth2-token-service/verifier/fastify';
import t from 'tap';
import { WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { API, MCP, RESOURCE_CLIENTS, RESOURCES } from '../helpers/resource-fixtures.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER } from '../helpers/server.js';

const MCP_METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

/** A verifier for the resource MCP (`createVerifier({ issuer, resource })`) against a real server's tokens. */
t.test('createVerifier({ issuer, resource }): the token must be issued for the resource (RFC 8707, RFC 9068 §4)', async (t) => {
  const { app, clock } = await buildTestServer(t, { clients: RESOURCE_CLIENTS, resources: RESOURCES });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const jwksUri = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/.well-known/jwks.json`;
  const make = (options: { resource?: string; audience?: string | string[] }) =>
    createVerifier({ issuer: ISSUER, jwksUri, clock: () => clock.now, jwksCooldownSeconds: 0, ...options } as Parameters<
      typeof createVerifier
    >[0]);
  const mcp = make({ resource: MCP });

  /** A client_credentials token of `robot` (scope `read tools`) for these resources. */
  const issued = async (resources: string[], scope: string) => {
    const body = new URLSearchParams({ grant_type: 'client_credentials', scope });
    for (const resource of resources) body.append('resource', resource);
    const res = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('robot', WEB_SECRET) },
      payload: body.toString(),
    });
    t.equal(res.statusCode, 200, res.body);
    return res.json().access_token as string;
  };
  const refusal = (verifier: Verifier, token: string, requiredScopes: string[] = []) =>
    verifier.verify(token, { requiredScopes }).then(
      () => undefined,
      (err: unknown) => err as TokenVerificationError,
    );

  t.test('accepts a token whose aud is the resource, or contains it', async (t) => {
    t.match(await mcp.verify(await issued([MCP], 'tools'), { requiredScopes: ['tools'] }), { aud: MCP, sub: 'robot', scope: 'tools' });
    t.match(await mcp.verify(await issued([MCP, API], 'read tools')), { aud: [MCP, API] });
  });

  t.test('refuses a token for another resource, and one issued without resource: 401 with resource_metadata', async (t) => {
    for (const token of [await issued([API], 'read'), await issued([], 'read')]) {
      const err = await refusal(mcp, token);
      t.type(err, TokenVerificationError);
      t.match(err, { code: 'invalid_token', status: 401, description: "the access token's aud claim is not valid here" });
      t.equal(
        err?.wwwAuthenticate,
        `Bearer realm="${MCP}", error="invalid_token", error_description="the access token's aud claim is not valid here", resource_metadata="${MCP_METADATA}"`,
      );
    }
  });

  t.test('a missing scope is 403 insufficient_scope with scope and resource_metadata', async (t) => {
    const err = await refusal(mcp, await issued([MCP], 'tools'), ['tools', 'files:read']);
    t.match(err, { code: 'insufficient_scope', status: 403 });
    t.equal(
      err?.wwwAuthenticate,
      `Bearer realm="${MCP}", error="insufficient_scope", error_description="the access token lacks the scope files:read", scope="tools files:read", resource_metadata="${MCP_METADATA}"`,
    );
  });

  t.test('resource and audience together: aud must contain one of them', async (t) => {
    const migrating = make({ resource: MCP, audience: ISSUER });
    t.match(await migrating.verify(await issued([MCP], 'tools')), { aud: MCP });
    t.match(await migrating.verify(await issued([], 'read')), { aud: ISSUER });
    t.match(await refusal(migrating, await issued([API], 'read')), { code: 'invalid_token' });
    t.equal(migrating.realm, MCP);
    t.equal(migrating.resourceMetadataUrl, MCP_METADATA);
  });

  t.test('audience alone works as before: no resource, no resource_metadata', async (t) => {
    const api = make({ audience: [API] });
    t.equal(api.resource, undefined);
    t.equal(api.resourceMetadataUrl, undefined);
    t.equal(api.challenge({ requiredScopes: ['read'] }), `Bearer realm="${API}", scope="read"`);
    const err = await refusal(api, await issued([MCP], 'tools'));
    t.equal(
      err?.wwwAuthenticate,
      `Bearer realm="${API}", error="invalid_token", error_description="the access token's aud claim is not valid here"`,
    );
  });

  t.test('requireScope: every challenge carries resource_metadata (RFC 9728 §5.1)', async (t) => {
    const api = Fastify();
    t.teardown(() => api.close());
    api.post('/mcp', { preHandler: requireScope(mcp, 'tools') }, async (request) => ({ sub: request.accessToken?.sub }));
    const post = (authorization?: string) => api.inject({ method: 'POST', url: '/mcp', headers: authorization ? { authorization } : {} });

    const none = await post();
    t.equal(none.statusCode, 401);
    t.equal(none.headers['www-authenticate'], `Bearer realm="${MCP}", scope="tools", resource_metadata="${MCP_METADATA}"`);
    t.equal(none.headers['cache-control'], 'no-store');
    t.same(none.json(), { error: 'invalid_token', error_description: 'an access token is required' });

    const elsewhere = await post(`Bearer ${await issued([API], 'read')}`);
    t.equal(elsewhere.statusCode, 401);
    t.same(elsewhere.json(), { error: 'invalid_token', error_description: "the access token's aud claim is not valid here" });
    t.equal(
      elsewhere.headers['www-authenticate'],
      `Bearer realm="${MCP}", error="invalid_token", error_description="the access token's aud claim is not valid here", resource_metadata="${MCP_METADATA}"`,
    );

    const weak = await post(`Bearer ${await issued([MCP, API], 'read')}`);
    t.equal(weak.statusCode, 403);
    t.same(weak.json(), { error: 'insufficient_scope', error_description: 'the access token lacks the scope tools' });
    t.equal(
      weak.headers['www-authenticate'],
      `Bearer realm="${MCP}", error="insufficient_scope", error_description="the access token lacks the scope tools", scope="tools", resource_metadata="${MCP_METADATA}"`,
    );

    const ok = await post(`Bearer ${await issued([MCP], 'tools')}`);
    t.equal(ok.statusCode, 200);
    t.same(ok.json(), { sub: 'robot' });
  });
});

t.test('createVerifier refuses a configuration it cannot enforce', async (t) => {
  const create = (options: Record<string, unknown>) => () =>
    createVerifier({ issuer: ISSUER, ...options } as Parameters<typeof createVerifier>[0]);
  t.throws(create({}), new TypeError('createVerifier needs the resource (or an audience) its tokens are issued for'));
  t.throws(create({ audience: [] }), new TypeError('createVerifier needs the resource (or an audience) its tokens are issued for'));
  t.throws(
    create({ resource: 'mcp.example.com/mcp' }),
    new TypeError('the resource identifier must be an absolute URL, got "mcp.example.com/mcp"'),
  );
  t.throws(create({ resource: 'urn:example:mcp' }), new TypeError('the resource identifier must be an https URL, got "urn:example:mcp"'));
  t.throws(
    create({ resource: 'https://mcp.example.com/mcp#tools' }),
    new TypeError('the resource identifier must not have a fragment, got "https://mcp.example.com/mcp#tools"'),
  );
});

t.test('the challenge without a token (RFC 6750 §3.1: no error code)', async (t) => {
  const verifier = createVerifier({ issuer: ISSUER, resource: MCP, realm: 'tools "beta"' });
  t.equal(verifier.challenge(), `Bearer realm="tools \\"beta\\"", resource_metadata="${MCP_METADATA}"`, 'a quoted-string');
  t.equal(
    verifier.challenge({ requiredScopes: ['a', 'b'] }),
    `Bearer realm="tools \\"beta\\"", scope="a b", resource_metadata="${MCP_METADATA}"`,
  );
  t.equal(createVerifier({ issuer: `${ISSUER}/`, resource: MCP }).issuer, ISSUER, 'the issuer as compared with iss');
});

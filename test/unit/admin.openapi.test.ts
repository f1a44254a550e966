import { Validator } from '@seriousme/openapi-schema-validator';
import type { LightMyRequestResponse } from 'fastify';
import t from 'tap';
import { openApiDocument } from '../../src/admin/openapi.js';
import type { AdminRoute } from '../../src/admin/routes.js';
import { adminEntityRoutes } from '../../src/routes/admin/entities.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ADMIN_API, ADMIN_CLIENTS, ADMIN_SECRET, adminToken, bearer } from '../helpers/admin.js';
import { widgetRoutes, Widgets } from '../helpers/admin-widgets.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER } from '../helpers/server.js';

/**
 * GET /admin/v1/openapi.json: a valid OpenAPI 3.1 document (by an OpenAPI schema
 * validator), listing every admin route the server serves, and every route answering only
 * with the statuses and media types the document declares for it, its bodies as its schemas say.
 */

interface Operation {
  readonly operationId: string;
  readonly security: readonly Record<string, readonly string[]>[];
  readonly parameters: readonly { name: string; in: string; required: boolean }[];
  readonly requestBody?: { content: Record<string, unknown> };
  readonly responses: Record<string, { content?: Record<string, unknown> }>;
}

type Document = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };

/** The routes Fastify serves below /admin/v1 ("GET /grants"), read from printRoutes' tree. */
function servedAdminRoutes(tree: string): string[] {
  const stack: string[] = [];
  const served: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([A-Z, ]+)\)/.exec(line);
    if (!match) continue;
    const depth = (match[1] as string).length / 4;
    stack.length = depth;
    stack.push(match[2] as string);
    const path = stack.join('');
    if (!path.startsWith('/admin/v1/')) continue;
    for (const method of (match[3] as string).split(', ').filter((m) => m !== 'HEAD'))
      served.push(`${method} ${path.slice('/admin/v1'.length).replace(/:(\w+)/g, '{$1}')}`);
  }
  return served.sort();
}

/** The app's declared routes, for their zod schemas (the handlers are never called here). */
const DECLARED: readonly AdminRoute[] = adminEntityRoutes({
  api: { clients: {}, users: {}, resources: {}, providers: {}, workloadTrusts: {} } as never,
  grants: {} as never,
  keystore: {} as never,
  clock: Date.now,
  adminUrl: ADMIN_API,
});

t.test('GET /admin/v1/openapi.json', async (t) => {
  const { app } = await buildTestServer(t, { clients: ADMIN_CLIENTS });
  const res = await app.inject({ method: 'GET', url: '/admin/v1/openapi.json' });
  t.equal(res.statusCode, 200, 'no token needed');
  t.equal(res.headers['content-type'], 'application/json');
  const document = res.json() as Document;

  t.test('is a valid OpenAPI 3.1 document', async (t) => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    t.same(result.errors ?? [], [], 'no schema errors');
    t.equal(result.valid, true);
    t.equal(validator.version, '3.1');
    t.equal(document.openapi, '3.1.0');
    t.same(document.servers, [{ url: ADMIN_API }]);
  });

  t.test('lists every admin route the server serves, and no other', async (t) => {
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    t.same(documented, servedAdminRoutes(app.printRoutes({ commonPrefix: false })));
    t.same(documented, [
      'DELETE /clients/{client_id}',
      'DELETE /grants/{grant_id}',
      'DELETE /providers/{id}',
      'DELETE /resources/{resource}',
      'DELETE /users/{sub}',
      'DELETE /workload-trusts/{id}',
      'GET /clients',
      'GET /clients/{client_id}',
      'GET /grants',
      'GET /keys',
      'GET /openapi.json',
      'GET /providers',
      'GET /providers/{id}',
      'GET /resources',
      'GET /resources/{resource}',
      'GET /users',
      'GET /users/{sub}',
      'GET /workload-trusts',
      'GET /workload-trusts/{id}',
      'PATCH /clients/{client_id}',
      'PATCH /users/{sub}',
      'POST /clients',
      'POST /clients/{client_id}/secret',
      'POST /providers',
      'POST /resources',
      'POST /users',
      'POST /workload-trusts',
      'PUT /clients/{client_id}',
      'PUT /providers/{id}',
      'PUT /resources/{resource}',
      'PUT /users/{sub}/password',
      'PUT /workload-trusts/{id}',
    ]);
  });

  t.test('every route answers only as it says', async (t) => {
    const full = await adminToken(app, 'operator');
    const readOnly = await adminToken(app, 'auditor');
    const writeOnly = await adminToken(app, 'operator', { scope: 'admin:write' });
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const declared = DECLARED.find((route) => route.operationId === operation.operationId);
        const isPublic = operation.security.length === 0;
        const url = `/admin/v1${path.replace(/\{\w+\}/g, 'AAAAAAAAAAAAAAAAAAAAAA')}?${operation.parameters
          .filter((p) => p.in === 'query' && p.name !== 'limit' && p.name !== 'cursor')
          .map((p) => `${p.name}=alice`)
          .join('&')}`;
        const body = operation.requestBody
          ? { payload: '{}', headers: { 'content-type': Object.keys(operation.requestBody.content)[0] as string } }
          : { headers: {} };
        const send = (headers: Record<string, string>) =>
          app.inject({ method: method.toUpperCase() as 'GET', url, ...body, headers: { ...body.headers, ...headers } });
        const scope = operation.security[0]?.oauth2?.[0];
        const attempts: [string, LightMyRequestResponse][] = [
          ['as it should be', await send(bearer(full))],
          ['without a token', await send({})],
          ...(isPublic
            ? []
            : [
                ['without its scope', await send(bearer(scope === 'admin:read' ? writeOnly : readOnly))] as [
                  string,
                  LightMyRequestResponse,
                ],
              ]),
          [
            'with an unknown query parameter',
            await app.inject({ method: method.toUpperCase() as 'GET', url: `${url}&unknown=1`, headers: bearer(full) }),
          ],
        ];
        for (const [what, res] of attempts) {
          const name = `${method.toUpperCase()} ${path} ${what}: ${res.statusCode}`;
          const answer = operation.responses[String(res.statusCode)];
          t.ok(answer, `${name} is declared`);
          const contentType = res.headers['content-type'];
          if (answer?.content) t.ok(contentType && answer.content[String(contentType)], `${name} as ${contentType}`);
          else t.equal(res.body, '', `${name} without content`);
          const schema = declared?.responses[res.statusCode]?.schema;
          if (schema) t.ok(schema.safeParse(res.json()).success, `${name} body as its schema says`);
        }
        if (!isPublic)
          t.ok(
            ['401', '403', '503'].every((status) => operation.responses[status]),
            `${operation.operationId}: 401, 403, 503 declared`,
          );
      }
    }
  });

  t.test('the security scheme names our endpoints and the admin scopes', async (t) => {
    t.same((document as unknown as { components: { securitySchemes: unknown } }).components.securitySchemes, {
      oauth2: {
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: `${ISSUER}/oauth2/token`,
            scopes: { 'admin:read': 'Read the configuration', 'admin:write': 'Change the configuration' },
          },
          authorizationCode: {
            authorizationUrl: `${ISSUER}/oauth2/authorize`,
            tokenUrl: `${ISSUER}/oauth2/token`,
            scopes: { 'admin:read': 'Read the configuration', 'admin:write': 'Change the configuration' },
          },
        },
      },
    });
  });
});

t.test('an entity plugin with bodies, path parameters and If-Match documents as valid OpenAPI 3.1', async (t) => {
  const document = openApiDocument(widgetRoutes(new Widgets()), [], {
    serverUrl: ADMIN_API,
    tokenUrl: `${ISSUER}/oauth2/token`,
    authorizationUrl: `${ISSUER}/oauth2/authorize`,
    version: '1',
  }) as unknown as Document;
  const result = await new Validator().validate(structuredClone(document));
  t.same(result.errors ?? [], []);
  t.equal(result.valid, true);
  const patch = document.paths['/widgets/{id}']?.patch as Operation & Record<string, unknown>;
  t.same(Object.keys(patch.requestBody?.content ?? {}), ['application/merge-patch+json']);
  t.same(
    patch.parameters.map((p) => `${p.in} ${p.name} ${p.required}`),
    ['path id true', 'header If-Match false'],
  );
  t.same(Object.keys(patch.responses).sort(), ['200', '400', '401', '403', '404', '409', '412', '413', '415', '503']);
  const create = document.paths['/widgets']?.post as Operation;
  t.same(Object.keys(create.responses).sort(), ['201', '400', '401', '403', '409', '413', '415', '503']);
  t.same(
    (create.requestBody?.content['application/json'] as { schema: { additionalProperties: boolean } }).schema.additionalProperties,
    false,
    'unknown fields refused',
  );
});

/** One call of the walk: an operation called as it should be, with the ETag its entry had last (If-Match). */
interface WalkStep {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  /** The key of the ETag to send (the last one answered for it). */
  readonly entry?: string;
}

const MESH_JWKS = {
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
      use: 'jwt-svid',
    },
  ],
};

const WALK: readonly WalkStep[] = [
  { operationId: 'getOpenApiDocument', method: 'GET', path: '/openapi.json' },
  { operationId: 'listKeys', method: 'GET', path: '/keys' },
  {
    operationId: 'createClient',
    method: 'POST',
    path: '/clients',
    body: { client_id: 'walk', grant_types: ['client_credentials'] },
    entry: 'client',
  },
  { operationId: 'listClients', method: 'GET', path: '/clients' },
  { operationId: 'getClient', method: 'GET', path: '/clients/walk', entry: 'client' },
  {
    operationId: 'replaceClient',
    method: 'PUT',
    path: '/clients/walk',
    body: { grant_types: ['client_credentials'], scope: 'read' },
    entry: 'client',
  },
  { operationId: 'patchClient', method: 'PATCH', path: '/clients/walk', body: { client_name: 'Walk' }, entry: 'client' },
  { operationId: 'rotateClientSecret', method: 'POST', path: '/clients/walk/secret', entry: 'client' },
  { operationId: 'deleteClient', method: 'DELETE', path: '/clients/walk', entry: 'client' },
  {
    operationId: 'createResource',
    method: 'POST',
    path: '/resources',
    body: { resource: 'https://walk.example.com/', scope: 'read' },
    entry: 'resource',
  },
  { operationId: 'listResources', method: 'GET', path: '/resources' },
  { operationId: 'getResource', method: 'GET', path: '/resources/https%3A%2F%2Fwalk.example.com%2F', entry: 'resource' },
  {
    operationId: 'replaceResource',
    method: 'PUT',
    path: '/resources/https%3A%2F%2Fwalk.example.com%2F',
    body: { resource: 'https://walk.example.com/', name: 'Walk' },
    entry: 'resource',
  },
  { operationId: 'deleteResource', method: 'DELETE', path: '/resources/https%3A%2F%2Fwalk.example.com%2F', entry: 'resource' },
  {
    operationId: 'createProvider',
    method: 'POST',
    path: '/providers',
    body: { id: 'walk', type: 'github', name: 'Walk', client_id: 'walk', client_secret: 'walk-secret' },
    entry: 'provider',
  },
  { operationId: 'listProviders', method: 'GET', path: '/providers' },
  { operationId: 'getProvider', method: 'GET', path: '/providers/walk', entry: 'provider' },
  {
    operationId: 'replaceProvider',
    method: 'PUT',
    path: '/providers/walk',
    body: { id: 'walk', type: 'github', name: 'Walk on', client_id: 'walk' },
    entry: 'provider',
  },
  { operationId: 'deleteProvider', method: 'DELETE', path: '/providers/walk', entry: 'provider' },
  {
    operationId: 'createWorkloadTrust',
    method: 'POST',
    path: '/workload-trusts',
    body: {
      id: 'walk',
      issuer: 'spiffe://walk.example.org',
      jwks: MESH_JWKS,
      rules: [{ sub: 'spiffe://walk.example.org/*', resources: ['https://mcp.example.com'], scope: 'tools:call' }],
    },
    entry: 'trust',
  },
  { operationId: 'listWorkloadTrusts', method: 'GET', path: '/workload-trusts' },
  { operationId: 'getWorkloadTrust', method: 'GET', path: '/workload-trusts/walk', entry: 'trust' },
  {
    operationId: 'replaceWorkloadTrust',
    method: 'PUT',
    path: '/workload-trusts/walk',
    body: {
      id: 'walk',
      issuer: 'spiffe://walk.example.org',
      jwks: MESH_JWKS,
      require_jti: true,
      rules: [{ claims: { env: 'prod' }, resources: ['https://mcp.example.com'], scope: 'tools:call' }],
    },
    entry: 'trust',
  },
  { operationId: 'deleteWorkloadTrust', method: 'DELETE', path: '/workload-trusts/walk', entry: 'trust' },
  { operationId: 'createUser', method: 'POST', path: '/users', body: { username: 'walker', password: 'walker-password-1' }, entry: 'user' },
  { operationId: 'listUsers', method: 'GET', path: '/users' },
  { operationId: 'getUser', method: 'GET', path: '/users/walker', entry: 'user' },
  { operationId: 'patchUser', method: 'PATCH', path: '/users/walker', body: { claims: { name: 'Walker' } }, entry: 'user' },
  { operationId: 'setUserPassword', method: 'PUT', path: '/users/walker/password', body: { password: 'walker-password-2' }, entry: 'user' },
  { operationId: 'listGrants', method: 'GET', path: '/grants?sub=walker' },
  { operationId: 'revokeGrant', method: 'DELETE', path: '/grants/{walker-grant}' },
  { operationId: 'deleteUser', method: 'DELETE', path: '/users/walker', entry: 'user' },
];

t.test('every operation of the document, called as it should be, answers a success it declares, as its schema says', async (t) => {
  const legacy = {
    client_id: 'legacy',
    client_secret_hash: hashClientSecret(ADMIN_SECRET),
    grant_types: ['password'],
    scope: 'read',
  };
  const { app } = await buildTestServer(t, {
    clients: [...ADMIN_CLIENTS, legacy],
    providers: [],
    workloads: [],
    env: { ENTRIES_ENCRYPTION_KEY: 'entries-encryption-key-0123456789abcdef', DYNAMIC_CLIENT_REGISTRATION: 'open' },
  });
  const document = (await app.inject({ method: 'GET', url: '/admin/v1/openapi.json' })).json() as Document;
  const operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
  );
  t.same(
    operations.map((o) => o.operation.operationId).sort(),
    WALK.map((step) => step.operationId).sort(),
    'the walk calls every operation (a new route needs its step)',
  );
  const token = bearer(await adminToken(app, 'operator'));
  const etags = new Map<string, string>();
  let grant = '';
  for (const step of WALK) {
    if (step.operationId === 'listGrants') {
      const signedIn = await app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...FORM_HEADERS, authorization: basic('legacy', ADMIN_SECRET) },
        payload: 'grant_type=password&username=walker&password=walker-password-2',
      });
      t.equal(signedIn.statusCode, 200, signedIn.body);
      grant = JSON.parse(Buffer.from((signedIn.json().access_token as string).split('.')[1] as string, 'base64url').toString()).grant_id;
    }
    const { operation, path } = operations.find((o) => o.operation.operationId === step.operationId) as (typeof operations)[number];
    const ifMatch = step.entry !== undefined && step.method !== 'GET' && step.method !== 'POST' ? etags.get(step.entry) : undefined;
    const res = await app.inject({
      method: step.method,
      url: `/admin/v1${step.path.replace('{walker-grant}', grant)}`,
      headers: {
        ...(path === '/openapi.json' ? {} : token),
        ...(step.body === undefined ? {} : { 'content-type': Object.keys(operation.requestBody?.content ?? {})[0] as string }),
        ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
      },
      ...(step.body === undefined ? {} : { payload: JSON.stringify(step.body) }),
    });
    const name = `${step.method} ${path} (${step.operationId}): ${res.statusCode}`;
    t.ok(res.statusCode >= 200 && res.statusCode < 300, `${name} succeeds ${res.statusCode >= 300 ? res.body : ''}`);
    const answer = operation.responses[String(res.statusCode)];
    t.ok(answer, `${name} is declared`);
    const contentType = res.headers['content-type'];
    if (answer?.content) t.ok(contentType && answer.content[String(contentType)], `${name} as ${contentType}`);
    else t.equal(res.body, '', `${name} without content`);
    const schema = DECLARED.find((route) => route.operationId === step.operationId)?.responses[res.statusCode]?.schema;
    if (schema) {
      const parsed = schema.safeParse(res.json());
      t.ok(parsed.success, `${name} body as its schema says ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`);
    }
    if (step.entry !== undefined && typeof res.headers.etag === 'string') etags.set(step.entry, res.headers.etag);
  }
});

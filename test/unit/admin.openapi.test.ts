import { Validator } from '@seriousme/openapi-schema-validator';
import type { LightMyRequestResponse } from 'fastify';
import t from 'tap';
import { openApiDocument } from '../../src/admin/openapi.js';
import type { AdminRoute } from '../../src/admin/routes.js';
import type { AdminGrantsDependencies } from '../../src/admin/grants.js';
import { grantRoutes } from '../../src/routes/admin/grants.js';
import { keyRoutes } from '../../src/routes/admin/keys.js';
import { ADMIN_API, ADMIN_CLIENTS, adminToken, bearer } from '../helpers/admin.js';
import { widgetRoutes, Widgets } from '../helpers/admin-widgets.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';

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
const DECLARED: readonly AdminRoute[] = [
  ...grantRoutes({} as AdminGrantsDependencies),
  ...keyRoutes({ keystore: {} as never, clock: Date.now }),
];

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
    t.same(documented, ['DELETE /grants/{grant_id}', 'GET /grants', 'GET /keys', 'GET /openapi.json']);
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

import Fastify, { type FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { createVerifier } from '@oauth2-token-service/verifier';
import { nowSeconds } from '../../src/clock.js';
import { fanOut, type SecurityEvent } from '../../src/events/types.js';
import { Keystore } from '../../src/keys/keystore.js';
import { ServerMetrics } from '../../src/metrics/server-metrics.js';
import { adminApi } from '../../src/routes/admin/index.js';
import { AccessTokens } from '../../src/tokens/access-token.js';
import { UserRegistry } from '../../src/users/registry.js';
import { ADMIN_API, bearer, expectProblem } from '../helpers/admin.js';
import { widgetRoutes, Widgets } from '../helpers/admin-widgets.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { ISSUER } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';

/**
 * The frame entity plugins are served by (src/routes/admin/): validation by the route's zod
 * schemas, ETag and If-Match, JSON Merge Patch, problem details for everything that goes
 * wrong, and the audit event of each change, driven through an example plugin (widgets).
 */

interface Frame {
  readonly app: FastifyInstance;
  readonly widgets: Widgets;
  readonly events: SecurityEvent[];
  readonly metrics: ServerMetrics;
  readonly headers: { authorization: string };
}

async function frame(t: Test): Promise<Frame> {
  const { store, clock } = await memoryStore(t);
  const now = () => clock.now;
  const keystore = await Keystore.open(await keysDirWithSigningKey(t, { now: nowSeconds(now) - 60 }), nowSeconds(now));
  const accessTokens = new AccessTokens(keystore, { issuer: ISSUER, audience: ISSUER, ttlSeconds: 300 }, now);
  const verifier = createVerifier({
    issuer: ISSUER,
    resource: ADMIN_API,
    getKey: async (header) => accessTokens.publicKeyFor(header, nowSeconds(now)),
    clock: now,
  });
  const events: SecurityEvent[] = [];
  const metrics = new ServerMetrics({ keys: keystore, clock: now, processMetrics: false });
  const widgets = new Widgets();
  const app = Fastify({ logger: false, genReqId: () => 'req-42' });
  await app.register(adminApi, {
    prefix: '/admin/v1',
    routes: widgetRoutes(widgets),
    callers: { verifier, denylist: store, grants: store, users: UserRegistry.fromEntries([]), dpopAlgorithms: ['ES256'] },
    events: fanOut([{ emit: (event) => events.push(event) }, metrics]),
    origin: ISSUER,
    openApi: { serverUrl: ADMIN_API, tokenUrl: `${ISSUER}/oauth2/token`, authorizationUrl: `${ISSUER}/oauth2/authorize`, version: '1' },
  });
  t.teardown(() => app.close());
  const { token } = await accessTokens.issue({
    subject: 'alice',
    clientId: 'console',
    scope: ['admin:read', 'admin:write'],
    resources: [{ resource: ADMIN_API, accessTokenTtl: undefined }],
  });
  return { app, widgets, events, metrics, headers: bearer(token) };
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const VALIDATION = { status: 400, type: 'validation', title: 'The request is not valid' } as const;

t.test('POST: the body validated by the route schema, unknown fields refused', async (t) => {
  const { app, headers, events } = await frame(t);
  const post = (payload: unknown) =>
    app.inject({ method: 'POST', url: '/admin/v1/widgets', headers: { ...headers, ...JSON_HEADERS }, payload: JSON.stringify(payload) });
  const created = await post({ id: 'w1', name: 'One', secret: 'hunter22-secret' });
  t.equal(created.statusCode, 201);
  t.same(
    {
      etag: created.headers.etag,
      location: created.headers.location,
      type: created.headers['content-type'],
      cache: created.headers['cache-control'],
    },
    { etag: '"widget-1"', location: '/admin/v1/widgets/w1', type: 'application/json', cache: 'no-store' },
  );
  t.same(created.json(), { id: 'w1', name: 'One', tags: [], secret_set: true, source: 'admin' }, 'the secret is never answered');
  t.same(events, [
    {
      event: 'admin.changed',
      actor: { sub: 'alice' },
      entity: 'resource',
      id: 'w1',
      action: 'created',
      fields: ['id', 'name', 'secret', 'tags'],
    },
  ]);
  t.notOk(JSON.stringify(events).includes('hunter22'), 'no value in the audit event');
  expectProblem(t, await post({ id: 'Bad Id', tags: ['x'.repeat(21)], colour: 'red' }), {
    ...VALIDATION,
    detail: 'the body has invalid fields',
    errors: [
      { field: 'id', problem: 'must be 1-32 lowercase letters, digits and -' },
      { field: 'name', problem: 'Invalid input: expected string, received undefined' },
      { field: 'tags.0', problem: 'Too big: expected string to have <=20 characters' },
      { field: 'colour', problem: 'unknown field' },
    ],
  });
  expectProblem(t, await post([1]), {
    ...VALIDATION,
    detail: 'the body has invalid fields',
    errors: [{ field: '(body)', problem: 'Invalid input: expected object, received array' }],
  });
  expectProblem(t, await post({ id: 'w1', name: 'Again' }), {
    status: 409,
    type: 'conflict-exists',
    title: 'An entry with this id exists already',
    detail: 'widget "w1" exists',
  });
});

t.test('bodies: JSON only, at most 64 KiB, well-formed', async (t) => {
  const { app, headers } = await frame(t);
  const post = (contentType: string | undefined, payload: string) =>
    app.inject({
      method: 'POST',
      url: '/admin/v1/widgets',
      headers: { ...headers, ...(contentType ? { 'content-type': contentType } : {}) },
      payload,
    });
  const tooLarge = {
    status: 413,
    type: 'payload-too-large',
    title: 'The body is larger than 64 KiB',
    detail: 'the body is larger than 64 KiB',
  };
  expectProblem(t, await post('application/json', JSON.stringify({ id: 'big', name: 'x'.repeat(66 * 1024) })), tooLarge);
  const unsupported = { status: 415, type: 'unsupported-media-type', title: 'The body must be JSON' } as const;
  expectProblem(t, await post('text/plain', '{"id":"a","name":"b"}'), { ...unsupported, detail: 'send the body as application/json' });
  expectProblem(t, await post('application/x-www-form-urlencoded', 'id=a&name=b'), {
    ...unsupported,
    detail: 'send the body as application/json',
  });
  expectProblem(t, await post('application/merge-patch+json', '{"id":"a","name":"b"}'), {
    ...unsupported,
    detail: 'send the body as application/json',
  });
  expectProblem(t, await post('application/json', '{"id": "a", '), {
    status: 400,
    type: 'invalid-json',
    title: 'The body is not valid JSON',
    detail: 'the body is not valid JSON (RFC 8259)',
  });
  expectProblem(t, await post(undefined, ''), {
    ...VALIDATION,
    detail: 'this request needs a JSON body',
    errors: [{ field: '(body)', problem: 'required' }],
  });
  t.equal((await post('application/json; charset=utf-8', '{"id":"a","name":"b"}')).statusCode, 201, 'a charset parameter is fine');
});

t.test('GET one, PATCH with JSON Merge Patch and If-Match, DELETE', async (t) => {
  const { app, headers, events } = await frame(t);
  await app.inject({
    method: 'POST',
    url: '/admin/v1/widgets',
    headers: { ...headers, ...JSON_HEADERS },
    payload: { id: 'w1', name: 'One', tags: ['a'] },
  });
  const read = await app.inject({ method: 'GET', url: '/admin/v1/widgets/w1', headers });
  t.equal(read.headers.etag, '"widget-1"');
  const patch = (payload: unknown, ifMatch?: string, type = 'application/merge-patch+json') =>
    app.inject({
      method: 'PATCH',
      url: '/admin/v1/widgets/w1',
      headers: { ...headers, 'content-type': type, ...(ifMatch ? { 'if-match': ifMatch } : {}) },
      payload: JSON.stringify(payload),
    });
  const patched = await patch({ name: 'Uno', tags: null }, '"widget-1"');
  t.equal(patched.statusCode, 200);
  t.equal(patched.headers.etag, '"widget-2"');
  t.same(patched.json(), { id: 'w1', name: 'Uno', tags: [], secret_set: false, source: 'admin' });
  t.same(events.at(-1), {
    event: 'admin.changed',
    actor: { sub: 'alice' },
    entity: 'resource',
    id: 'w1',
    action: 'updated',
    fields: ['name', 'tags'],
  });
  const precondition = {
    status: 412,
    type: 'precondition-failed',
    title: 'The entry changed since it was read (If-Match)',
    detail: 'If-Match does not name the current version of this entry: read it again',
  };
  expectProblem(t, await patch({ name: 'Stale' }, '"widget-1"'), precondition);
  t.equal((await app.inject({ method: 'GET', url: '/admin/v1/widgets/w1', headers })).json().name, 'Uno', 'nothing written');
  expectProblem(t, await patch({ name: 'Json' }, undefined, 'application/json'), {
    status: 415,
    type: 'unsupported-media-type',
    title: 'The body must be JSON',
    detail: 'send the body as application/merge-patch+json',
  });
  expectProblem(t, await patch({ name: null }), {
    ...VALIDATION,
    detail: 'the patched widget is not valid',
    errors: [{ field: 'name', problem: 'Invalid input: expected string, received undefined' }],
  });
  expectProblem(t, await patch({ name: 'x' }, 'widget-2'), {
    ...VALIDATION,
    detail: 'If-Match must be "*" or entity tags as ETag gave them',
    errors: [{ field: 'If-Match', problem: 'must be "*" or a list of quoted entity tags' }],
  });
  const del = (ifMatch: string) =>
    app.inject({ method: 'DELETE', url: '/admin/v1/widgets/w1', headers: { ...headers, 'if-match': ifMatch } });
  expectProblem(t, await del('"widget-1"'), precondition);
  const deleted = await del('*');
  t.equal(deleted.statusCode, 204);
  t.equal(deleted.body, '');
  expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1/widgets/w1', headers }), {
    status: 404,
    type: 'not-found',
    title: 'Not found',
    detail: 'no widget "w1"',
  });
  expectProblem(t, await app.inject({ method: 'DELETE', url: '/admin/v1/widgets/file-widget', headers }), {
    status: 409,
    type: 'conflict-file-entry',
    title: 'The entry comes from a file and is read-only here',
    detail: 'widget "file-widget" comes from widgets.json: change it there',
  });
});

t.test('lists page with limit and cursor', async (t) => {
  const { app, headers } = await frame(t);
  for (const id of ['a', 'b', 'c'])
    await app.inject({ method: 'POST', url: '/admin/v1/widgets', headers: { ...headers, ...JSON_HEADERS }, payload: { id, name: id } });
  const list = (query: string) => app.inject({ method: 'GET', url: `/admin/v1/widgets${query}`, headers });
  const first = (await list('?limit=2')).json();
  t.same(
    first.items.map((w: { id: string }) => w.id),
    ['file-widget', 'a'],
  );
  const second = (await list(`?limit=2&cursor=${first.next}`)).json();
  t.same(second, { items: ['b', 'c'].map((id) => ({ id, name: id, tags: [], secret_set: false, source: 'admin' })) });
  expectProblem(t, await list('?limit=0'), {
    ...VALIDATION,
    detail: 'the query has invalid parameters',
    errors: [{ field: 'limit', problem: 'Too small: expected number to be >=1' }],
  });
  expectProblem(t, await list('?cursor=nope!'), {
    ...VALIDATION,
    detail: 'the cursor is not one this list gave',
    errors: [{ field: 'cursor', problem: 'must be the `next` of the previous page, unchanged' }],
  });
  expectProblem(t, await list('?limit=1&limit=2'), {
    ...VALIDATION,
    detail: 'the query has invalid parameters',
    errors: [{ field: 'limit', problem: 'Invalid input: expected number, received NaN' }],
  });
  expectProblem(t, await list('?colour=red'), {
    ...VALIDATION,
    detail: 'the query has invalid parameters',
    errors: [{ field: 'colour', problem: 'unknown field' }],
  });
});

t.test('unrouted, unavailable, unexpected: problem details, never a stack', async (t) => {
  const { app, headers, widgets } = await frame(t);
  const notFound = { status: 404, type: 'not-found', title: 'Not found', detail: 'the admin API has no such path' };
  expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1/nothing' }), notFound);
  expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1' }), notFound);
  expectProblem(t, await app.inject({ method: 'PUT', url: '/admin/v1/widgets/w1', headers }), {
    status: 405,
    type: 'method-not-allowed',
    title: 'The method is not allowed here',
    detail: 'this path accepts DELETE, GET, HEAD, PATCH',
    headers: { allow: 'DELETE, GET, HEAD, PATCH' },
  });
  const head = await app.inject({ method: 'HEAD', url: '/admin/v1/widgets', headers });
  t.equal(head.statusCode, 200);
  t.equal(head.body, '');
  widgets.storeDown = true;
  expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1/widgets/file-widget', headers }), {
    status: 503,
    type: 'store-unavailable',
    title: 'The store is unavailable; retry later',
    detail: 'the store is unavailable: retry after 5 seconds',
    headers: { 'retry-after': '5' },
  });
  const broken = await app.inject({ method: 'GET', url: '/admin/v1/broken', headers });
  expectProblem(t, broken, {
    status: 500,
    type: 'internal-error',
    title: 'Internal error',
    detail: "an unexpected error; the server's log has it under request id req-42",
  });
  t.notOk(broken.body.includes('secret-ish'), 'the error message stays in the log');
});

t.test('a caller without a token learns nothing about its request (checked before the body is read)', async (t) => {
  const { app } = await frame(t);
  for (const payload of ['{', 'x'.repeat(70 * 1024)]) {
    const res = await app.inject({ method: 'POST', url: '/admin/v1/widgets', headers: JSON_HEADERS, payload });
    t.equal(res.statusCode, 401, `${payload.length} bytes: 401`);
  }
});

t.test('oauth2_admin_changes_total{entity,action} counts each change', async (t) => {
  const { app, headers, metrics } = await frame(t);
  for (const id of ['a', 'b'])
    await app.inject({ method: 'POST', url: '/admin/v1/widgets', headers: { ...headers, ...JSON_HEADERS }, payload: { id, name: id } });
  await app.inject({ method: 'DELETE', url: '/admin/v1/widgets/a', headers });
  const { body } = await metrics.scrape();
  t.match(body, /^oauth2_admin_changes_total\{entity="resource",action="created"\} 2$/m);
  t.match(body, /^oauth2_admin_changes_total\{entity="resource",action="deleted"\} 1$/m);
});

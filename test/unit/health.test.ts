import t from 'tap';
import { buildTestServer } from '../helpers/server.js';

t.test('GET /healthz and /readyz', async (t) => {
  t.test('memory store: alive and ready', async (t) => {
    const { app } = await buildTestServer(t);
    const health = await app.inject({ url: '/healthz' });
    t.equal(health.statusCode, 200);
    t.same(health.json(), { status: 'ok' });
    const ready = await app.inject({ url: '/readyz' });
    t.equal(ready.statusCode, 200);
    t.same(ready.json(), { status: 'ready', checks: { signing_key: true, store: true } });
  });

  t.test('no key inside its signing window: 503', async (t) => {
    const { app, clock } = await buildTestServer(t);
    clock.now -= 3600_000; // before the only key started signing
    const ready = await app.inject({ url: '/readyz' });
    t.equal(ready.statusCode, 503);
    t.same(ready.json(), { status: 'unavailable', checks: { signing_key: false, store: true } });
  });
});

import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { buildTestServer, TEST_CLIENTS } from '../helpers/server.js';

t.test('GET /healthz and /readyz', async (t) => {
  t.test('memory store: alive and ready; each algorithm the server needs, and whether a key of it signs', async (t) => {
    const { app } = await buildTestServer(t, { signingAlgorithms: ['ES256', 'RS256'] });
    const health = await app.inject({ url: '/healthz' });
    t.equal(health.statusCode, 200);
    t.same(health.json(), { status: 'ok' });
    const ready = await app.inject({ url: '/readyz' });
    t.equal(ready.statusCode, 200);
    t.same(ready.json(), { status: 'ready', checks: { signing_key: true, store: true, signing_algorithms: { ES256: true, RS256: true } } });
  });

  t.test('no key inside its signing window: 503', async (t) => {
    const { app, clock } = await buildTestServer(t);
    clock.now -= 3600_000; // before the only key started signing
    const ready = await app.inject({ url: '/readyz' });
    t.equal(ready.statusCode, 503);
    t.same(ready.json(), {
      status: 'unavailable',
      checks: { signing_key: false, store: true, signing_algorithms: { ES256: false, RS256: false } },
    });
  });

  t.test('a missing ID-token algorithm is reported, and the server stays ready (access tokens sign)', async (t) => {
    const { app } = await buildTestServer(t);
    const ready = await app.inject({ url: '/readyz' });
    t.equal(ready.statusCode, 200);
    t.same(ready.json(), {
      status: 'ready',
      checks: { signing_key: true, store: true, signing_algorithms: { ES256: true, RS256: false } },
    });
  });

  t.test(
    "the clients' id_token_signed_response_alg and ACCESS_TOKEN_SIGNING_ALG are needed too; a new chain counts once loaded",
    async (t) => {
      // Structurally, as the Client of CLIENTS_FILE will carry it once the field exists.
      const clients = ClientRegistry.fromMetadata(TEST_CLIENTS);
      const [first, ...rest] = clients.all();
      const withPreference = Object.assign(Object.create(clients) as ClientRegistry, {
        all: () => [{ ...first, idTokenSignedResponseAlg: 'PS256' as const }, ...rest],
      });
      const { app, keysDir, keystore, clock } = await buildTestServer(t, {
        clientRegistry: withPreference,
        signingAlgorithms: ['RS256'],
        env: { ACCESS_TOKEN_SIGNING_ALG: 'RS256' },
      });
      const checks = async () => (await app.inject({ url: '/readyz' })).json().checks.signing_algorithms;
      t.same(await checks(), { RS256: true, PS256: false });
      await rotateKeys(keysDir, { alg: 'PS256', delay: 0, accessTokenTtl: 3600, now: Math.floor(clock.now / 1000) });
      t.same(await checks(), { RS256: true, PS256: false }, 'not before a reload');
      await keystore.reload();
      t.same(await checks(), { RS256: true, PS256: true });
    },
  );
});

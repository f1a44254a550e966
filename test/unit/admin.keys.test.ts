import t from 'tap';
import { ADMIN_CLIENTS, adminToken, bearer } from '../helpers/admin.js';
import { tempDir, writeKeyWith } from '../helpers/keys.js';
import { buildTestServer } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';

/** GET /admin/v1/keys: each chain, its keys and where each stands now; read-only, never key material. */

t.test('GET /admin/v1/keys', async (t) => {
  const opened = await memoryStore(t);
  const now = Math.floor(opened.clock.now / 1000);
  const dir = await tempDir(t, 'oauth-keys-');
  // ES256: a retiring predecessor, the signer, a scheduled successor; RS256: one signer (ID tokens).
  await writeKeyWith(dir, now - 7200, { kid: 'es-old', signs_until: now - 600, publish_until: now + 3000 });
  await writeKeyWith(dir, now - 600, { kid: 'es-now', signs_until: now + 3600, publish_until: now + 7200 });
  await writeKeyWith(dir, now - 60, { kid: 'es-next', signs_from: now + 3600 });
  await writeKeyWith(dir, now - 60, { kid: 'rs-now', alg: 'RS256' });
  const { app } = await buildTestServer(t, { clients: ADMIN_CLIENTS, store: opened, keysDir: dir });
  const res = await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: bearer(await adminToken(app, 'auditor')) });
  t.equal(res.statusCode, 200);
  t.same(res.headers['cache-control'], 'no-store');
  t.same(res.json(), {
    items: [
      {
        alg: 'ES256',
        signs_access_tokens: true,
        keys: [
          {
            kid: 'es-old',
            alg: 'ES256',
            state: 'retiring',
            published: true,
            created_at: now - 7200,
            signs_from: now - 7200,
            signs_until: now - 600,
            publish_until: now + 3000,
          },
          {
            kid: 'es-now',
            alg: 'ES256',
            state: 'signing',
            published: true,
            created_at: now - 600,
            signs_from: now - 600,
            signs_until: now + 3600,
            publish_until: now + 7200,
          },
          { kid: 'es-next', alg: 'ES256', state: 'scheduled', published: true, created_at: now - 60, signs_from: now + 3600 },
        ],
      },
      {
        alg: 'RS256',
        signs_access_tokens: false,
        keys: [{ kid: 'rs-now', alg: 'RS256', state: 'signing', published: true, created_at: now - 60, signs_from: now - 60 }],
      },
    ],
  });
  for (const secret of ['"d"', '"p"', '"q"', 'jwk']) t.notOk(res.body.includes(secret), `no ${secret} in the answer`);
});

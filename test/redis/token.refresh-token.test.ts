import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { expectInvalidGrant, INVALID, REUSED, refreshTokenSuite, setup } from '../suites/refresh-token.js';

refreshTokenSuite(t, 'Redis store', redisStore);

t.test('parallel refreshes with one token against real Redis', async (t) => {
  t.test('two at once (two tabs, or a retry after a dropped response): both get the same successor, the family lives', async (t) => {
    const { app, firstTokens } = await setup(t, redisStore, { REFRESH_REUSE_GRACE: '10' });
    const first = await firstTokens();
    const [a, b] = await Promise.all([app.refresh(first.refresh_token), app.refresh(first.refresh_token)]);
    t.same([a.statusCode, b.statusCode], [200, 200]);
    t.same(a.json(), b.json(), 'identical responses');
    t.equal((await app.refresh(a.json().refresh_token)).statusCode, 200, 'the successor works');
  });

  t.test('five at once: one rotation, one grace answer, one reuse that revokes the family, two refused', async (t) => {
    const { app, firstTokens } = await setup(t, redisStore, { REFRESH_REUSE_GRACE: '10' });
    const first = await firstTokens();
    const results = await Promise.all(Array.from({ length: 5 }, () => app.refresh(first.refresh_token)));
    const ok = results.filter((r) => r.statusCode === 200);
    t.equal(ok.length, 2);
    t.same(ok[0]?.json(), ok[1]?.json(), 'the rotation and the grace answer carry the same tokens');
    t.same(
      results
        .filter((r) => r.statusCode === 400)
        .map((r) => r.json().error_description)
        .sort(),
      [INVALID, INVALID, REUSED],
    );
    expectInvalidGrant(t, await app.refresh(ok[0]?.json().refresh_token), INVALID);
  });

  t.test('a public client, two at once, grace configured: one rotation, one reuse, the family is revoked', async (t) => {
    const { firstTokens, clientNamed } = await setup(t, redisStore, { REFRESH_REUSE_GRACE: '10' });
    const mobile = clientNamed('mobile', null);
    const first = await firstTokens(mobile, 'read');
    const results = await Promise.all([mobile.refresh(first.refresh_token), mobile.refresh(first.refresh_token)]);
    const ok = results.filter((r) => r.statusCode === 200);
    t.equal(ok.length, 1);
    t.same(
      results.filter((r) => r.statusCode === 400).map((r) => r.json()),
      [{ error: 'invalid_grant', error_description: REUSED }],
    );
    expectInvalidGrant(t, await mobile.refresh(ok[0]?.json().refresh_token), INVALID);
  });

  t.test('without a grace window, parallel use is reuse: exactly one rotation, then the family is revoked', async (t) => {
    const { app, firstTokens } = await setup(t, redisStore, { REFRESH_REUSE_GRACE: '0' });
    const first = await firstTokens();
    const results = await Promise.all(Array.from({ length: 4 }, () => app.refresh(first.refresh_token)));
    const ok = results.filter((r) => r.statusCode === 200);
    t.equal(ok.length, 1);
    expectInvalidGrant(t, await app.refresh(ok[0]?.json().refresh_token), INVALID);
  });
});

import t, { type Test } from 'tap';
import { type RedisTestStore, redisStore } from '../helpers/redis-stores.js';
import { writeLegacyRefreshFamily } from '../helpers/legacy-refresh-family.js';
import { expectInvalidGrant, INVALID, REUSED, setup } from '../suites/refresh-token.js';

/**
 * Upgrade path: families written before constant-size families (family data in Redis, one
 * key per token) keep working until they expire; nobody is logged out by the upgrade.
 */
const LEGACY_TOKEN = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;
const FAMILY = { clientId: 'app', sub: 'user-alice', scope: ['read', 'write'], authTime: 1_700_000_000 };
const LIFETIMES = { absoluteSeconds: 600, idleSeconds: 300 };

async function legacySetup(t: Test, env: Record<string, string> = {}) {
  const opened: RedisTestStore = await redisStore(t);
  const server = await setup(t, async () => opened, env);
  const { grantId, token } = await writeLegacyRefreshFamily(opened, FAMILY, LIFETIMES);
  return { ...server, opened, grantId, token };
}

t.test('a refresh family written before the upgrade', async (t) => {
  t.test('rotates, its successors in the legacy format, and detects reuse of any earlier token', async (t) => {
    const { app, token } = await legacySetup(t, { REFRESH_REUSE_GRACE: '0' });
    const first = await app.refresh(token);
    t.equal(first.statusCode, 200);
    const successor = first.json().refresh_token as string;
    t.match(successor, LEGACY_TOKEN, 'the successor keeps the legacy format');
    t.equal(first.json().scope, 'read write');
    const second = await app.refresh(successor);
    t.equal(second.statusCode, 200, 'the successor rotates too');
    expectInvalidGrant(t, await app.refresh(token), REUSED);
    expectInvalidGrant(t, await app.refresh(second.json().refresh_token), INVALID);
  });

  t.test('a retry inside the grace window gets the same successor', async (t) => {
    const { app, token } = await legacySetup(t, { REFRESH_REUSE_GRACE: '10' });
    const rotated = await app.refresh(token);
    const retried = await app.refresh(token);
    t.same([rotated.statusCode, retried.statusCode], [200, 200]);
    t.same(retried.json(), rotated.json());
  });

  t.test('introspects, then revokes its whole grant', async (t) => {
    const { app, token, opened, grantId } = await legacySetup(t);
    const res = await app.post('/oauth2/introspect', { token });
    t.equal(res.statusCode, 200);
    t.match(res.json(), { active: true, client_id: 'app', sub: 'user-alice', scope: 'read write' });
    t.equal((await app.post('/oauth2/revoke', { token })).statusCode, 200);
    t.equal(await opened.store.isGrantRevoked(grantId), true);
    t.same((await app.post('/oauth2/introspect', { token })).json(), { active: false });
    expectInvalidGrant(t, await app.refresh(token), INVALID);
  });

  t.test("another client's legacy token is refused and changes nothing", async (t) => {
    const { clientNamed, token, opened, grantId } = await legacySetup(t);
    expectInvalidGrant(t, await clientNamed('other').refresh(token), INVALID);
    t.equal(await opened.store.isGrantRevoked(grantId), false);
  });
});

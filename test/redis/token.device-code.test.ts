import t from 'tap';
import { startPrivateRedis } from '../../harness/redis.js';
import { InjectBrowser } from '../helpers/browser-flow.js';
import { API, deviceServer, poll, startDevice, tv } from '../helpers/device-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { redisStore } from '../helpers/redis-stores.js';
import { deviceFlowSuite } from '../suites/device-flow.js';

deviceFlowSuite(t, 'Redis', redisStore);

t.test('Redis down: nothing starts (503, Retry-After), a poll is server_error, /device the 503 page', async (t) => {
  const redis = await startPrivateRedis(t);
  const { app } = await deviceServer(t, (t) => redisStore(t, { redis, commandTimeoutMs: 300 }));
  const { device_code } = await startDevice(tv(app));
  const browser = new InjectBrowser(app);
  const page = await browser.get('/device');
  await redis.kill();
  expectOAuthError(t, await tv(app).post('/oauth2/device_authorization', { scope: 'read' }, [API]), {
    status: 503,
    error: 'temporarily_unavailable',
    headers: { 'retry-after': '5' },
  });
  expectOAuthError(t, await poll(tv(app), device_code), {
    status: 500,
    error: 'server_error',
    description: 'the authorization server encountered an unexpected condition',
  });
  const fields = Object.fromEntries([...page.body.matchAll(/name="(csrf_token)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  const entered = await browser.post('/device', { ...fields, user_code: 'BCDF-GHJK' });
  t.equal(entered.statusCode, 503);
  t.match(entered.body, '<h1>Temporarily unavailable</h1>');
});

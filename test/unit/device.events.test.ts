import t from 'tap';
import { InjectBrowser } from '../helpers/browser-flow.js';
import { API, decideInBrowser, deviceServer, poll, startDevice, tv } from '../helpers/device-flow.js';
import { capturedLogger } from '../helpers/logs.js';
import { metricsListener, scrape } from '../helpers/metrics.js';
import { memoryStore } from '../helpers/stores.js';

/**
 * The device flow's audit lines (device.authorization_started, device.approved,
 * device.denied, token.issued with grant device_code) and counters
 * (oauth2_device_authorizations_total), and never a device code or a user code in a log line.
 */
t.test('the device flow in the audit log and the metrics; no code in any log line at trace', async (t) => {
  const log = capturedLogger('trace');
  const server = await deviceServer(t, memoryStore, { logger: log.logger, metrics: true });
  const { app, advance } = server;
  const client = tv(app);
  const approved = await startDevice(client, { scope: 'read' }, [API]);
  const denied = await startDevice(client, { scope: 'read' }, [API]);
  const expired = await startDevice(client, { scope: 'read' }, [API]);
  const browser = new InjectBrowser(app);
  await decideInBrowser(browser, approved.user_code);
  await decideInBrowser(browser, denied.user_code, 'deny');
  t.equal((await poll(client, approved.device_code)).statusCode, 200);
  await advance(600);
  for (let i = 0; i < 2; i++) t.equal((await poll(client, expired.device_code)).json().error, 'expired_token');

  const audited = log
    .lines()
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.audit === true)
    .map(({ event, clientId, grantId, sub, scope, resource, grant }) => ({ event, clientId, grantId, sub, scope, resource, grant }));
  const id = (started: { device_code: string }) => started.device_code.split('.')[0];
  t.same(
    audited.filter((line) => String(line.event).startsWith('device.') || line.event === 'token.issued'),
    [
      { event: 'device.authorization_started', clientId: 'tv', grantId: id(approved), scope: ['read'], resource: [API] },
      { event: 'device.authorization_started', clientId: 'tv', grantId: id(denied), scope: ['read'], resource: [API] },
      { event: 'device.authorization_started', clientId: 'tv', grantId: id(expired), scope: ['read'], resource: [API] },
      { event: 'device.approved', clientId: 'tv', grantId: id(approved), sub: 'user-alice', scope: ['read'], resource: [API] },
      { event: 'device.denied', clientId: 'tv', grantId: id(denied), sub: 'user-alice' },
      {
        event: 'token.issued',
        clientId: 'tv',
        grantId: id(approved),
        sub: 'user-alice',
        scope: ['read'],
        resource: [API],
        grant: 'device_code',
      },
    ].map((line) => ({ grant: undefined, sub: undefined, scope: undefined, resource: undefined, ...line })),
  );
  const text = log.text();
  for (const started of [approved, denied, expired]) {
    t.notOk(text.includes(started.device_code.split('.')[1] as string), 'no device code secret in the logs');
    t.notOk(text.includes(started.user_code) || text.includes(started.user_code.replace('-', '')), 'no user code in the logs');
  }

  const s = await scrape(await metricsListener(t, server.metrics));
  t.same(
    ['started', 'approved', 'denied', 'expired'].map((outcome) => s.value('oauth2_device_authorizations_total', { outcome })),
    [3, 1, 1, 1],
    'an expiry counted once, at the first poll that finds it',
  );
  t.equal(s.value('oauth2_tokens_issued_total', { grant_type: 'device_code', client_id: 'tv' }), 1);
  t.equal(s.value('oauth2_token_errors_total', { error: 'expired_token' }), 2);
});

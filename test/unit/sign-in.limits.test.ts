import t from 'tap';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { until } from '../helpers/sign-in.js';
import { memoryStore } from '../helpers/stores.js';
import { endpointLimitsSuite, setup, statuses } from '../suites/sign-in-limits.js';

endpointLimitsSuite(t, 'memory store', memoryStore);

t.test('the cap on concurrent password verifications (PASSWORD_VERIFY_CONCURRENCY, PASSWORD_VERIFY_QUEUE)', async (t) => {
  t.test(
    'password grant, unknown users checked against the production-cost dummy hash: the excess gets 503 at once, never a wait',
    async (t) => {
      const { passwordGrant, counting } = await setup(t, { env: { PASSWORD_VERIFY_CONCURRENCY: '2', PASSWORD_VERIFY_QUEUE: '2' } });
      const started = Date.now();
      const timed = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const res = await passwordGrant(`nobody-${i}`, 'guess', `198.51.100.${i}`);
          return { res, ms: Date.now() - started };
        }),
      );
      const busy = timed.filter(({ res }) => res.statusCode === 503);
      t.equal(counting.verifications, 4, 'two running, two queued');
      t.same(statuses(timed.map(({ res }) => res)), { 400: 4, 503: 26 });
      expectOAuthError(t, busy[0]!.res, {
        status: 503,
        error: 'temporarily_unavailable',
        description: 'too many sign-ins in progress: retry after 1 second',
        headers: { 'retry-after': '1' },
      });
      const slowest = Math.max(...busy.map(({ ms }) => ms));
      const checked = timed.filter(({ res }) => res.statusCode === 400).map(({ ms }) => ms);
      t.ok(
        slowest < 1000,
        `every 503 within ${slowest} ms (the four checked answered after ${Math.min(...checked)}-${Math.max(...checked)} ms)`,
      );
      t.equal(
        (await passwordGrant(ALICE.username, ALICE.password, '198.51.100.0')).statusCode,
        200,
        'refused attempts left nothing counted',
      );
    },
  );

  t.test('login form: a "busy" page with 503 and Retry-After, the form kept', async (t) => {
    const { loginForm, counting } = await setup(t, { env: { PASSWORD_VERIFY_CONCURRENCY: '1', PASSWORD_VERIFY_QUEUE: '0' } });
    const [first, second] = await Promise.all([loginForm('192.0.2.1'), loginForm('192.0.2.2')]);
    counting.hold();
    const held = first!.submit(ALICE.username, ALICE.password);
    await until(() => counting.verifications === 1, 'the first check');
    const busy = await second!.submit('bob', 'bob-password-1');
    t.equal(busy.statusCode, 503);
    t.equal(busy.headers['retry-after'], '1');
    t.match(busy.body, '<p class="error" role="alert">Too many sign-ins are in progress right now. Please try again in a moment.</p>');
    t.match(busy.body, 'value="bob"', 'the username is kept');
    counting.release();
    t.equal((await held).statusCode, 303);
  });
});

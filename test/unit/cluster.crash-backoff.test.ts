import t from 'tap';
import { CrashBackoff } from '../../src/cluster/crash-backoff.js';

t.test('CrashBackoff: the delay before replacing a dead worker', async (t) => {
  t.test('doubles with each crash in a row, up to the maximum', async (t) => {
    const backoff = new CrashBackoff({ baseMs: 100, maxMs: 1000, stableMs: 5000 });
    const delays = Array.from({ length: 6 }, () => backoff.delayAfterCrash(50));
    t.same(delays, [100, 200, 400, 800, 1000, 1000]);
  });

  t.test('starts over once a worker stayed up for stableMs', async (t) => {
    const backoff = new CrashBackoff({ baseMs: 100, maxMs: 1000, stableMs: 5000 });
    backoff.delayAfterCrash(50);
    backoff.delayAfterCrash(50);
    t.equal(backoff.delayAfterCrash(4999), 400, 'a short life continues the series');
    t.equal(backoff.delayAfterCrash(5000), 100, 'a stable worker ends it');
    t.equal(backoff.delayAfterCrash(10), 200);
  });
});

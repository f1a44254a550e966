import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { selfTimes, topLines } from '../../bench/cpu-profile.js';
import { tempDir } from '../helpers/keys.js';

/**
 * `npm run bench:profile -- <grant> --cpu-prof` reads the server's V8 CPU profile: self time
 * by function and by module, only within the measured window, idle left out.
 */

const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber, scriptId: '0', columnNumber: 0 });

const PROFILE = {
  nodes: [
    { id: 1, callFrame: frame('(root)', '') },
    { id: 2, callFrame: frame('(idle)', '') },
    { id: 3, callFrame: frame('handle', 'file:///srv/app/dist/src/grants/client-credentials.js', 9) },
    { id: 4, callFrame: frame('routeHandler', 'file:///srv/app/node_modules/fastify/lib/route.js', 464) },
    { id: 5, callFrame: frame('sign', 'file:///srv/app/node_modules/@scope/pkg/index.js', 0) },
    { id: 6, callFrame: frame('(garbage collector)', '') },
  ],
  startTime: 1_000,
  // Sample times: 1,010 1,020 … (each delta 10 µs after the first).
  samples: [3, 3, 2, 4, 5, 6, 3, 3],
  timeDeltas: [10, 10, 10, 10, 10, 10, 10, 10],
};

t.test('self time in the window, by function and by module; idle and samples outside left out', async (t) => {
  const file = join(await tempDir(t), 'server.cpuprofile');
  await writeFile(file, JSON.stringify(PROFILE));
  // The window 1,020-1,060 holds samples 2-6: handle, idle, routeHandler, sign, GC.
  const times = selfTimes(file, 1_020, 1_060);
  t.equal(times.busy, 40);
  t.same(Object.fromEntries(times.byFunction), {
    'handle src/grants/client-credentials.js:10': 10,
    'routeHandler fastify:465': 10,
    'sign @scope/pkg:1': 10,
    '(garbage collector) (garbage collector)': 10,
  });
  t.same(Object.fromEntries(times.byModule), {
    'src/grants/client-credentials.js': 10,
    fastify: 10,
    '@scope/pkg': 10,
    '(garbage collector)': 10,
  });
  const all = selfTimes(file, 0, Number.MAX_SAFE_INTEGER);
  t.equal(all.busy, 70, 'the whole profile: 8 samples, one idle');
  t.equal(all.byFunction.get('handle src/grants/client-credentials.js:10'), 40);
});

t.test('topLines: microseconds per request and share of the busy time, largest first', async (t) => {
  const lines = topLines(
    new Map([
      ['b', 30],
      ['a', 70],
      ['c', 5],
    ]),
    100,
    10,
    2,
  );
  t.same(lines, ['    7.00 µs  70.0 %  a', '    3.00 µs  30.0 %  b']);
});

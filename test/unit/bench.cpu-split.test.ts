import t from 'tap';
import { ceilingLines, ceilingOf } from '../../bench/ceilings.js';
import { cpuMeter, cpuSplitLine, perRequest } from '../../bench/cpu-split.js';

t.test('perRequest: each part over all the samples together, in µs per request', async (t) => {
  const cpu = perRequest([
    { server: 0.2, redis: 0.05, loadGenerator: 0.1, requests: 1000 },
    { server: 0.4, redis: 0.05, loadGenerator: 0.1, requests: 3000 },
  ]);
  t.same(cpu, { server: 150, redis: 25, loadGenerator: 50 });
  t.equal(perRequest([{ server: 1, redis: 1, loadGenerator: 1, requests: 10 }, undefined]), undefined, 'a sample without /proc: unknown');
  t.equal(perRequest([]), undefined);
});

t.test('cpuSplitLine: the server ratio, the whole-host ratio and the ceiling were our server free', async (t) => {
  const line = cpuSplitLine('refresh', { server: 200, redis: 30, loadGenerator: 70 }, { server: 500, redis: 40, loadGenerator: 60 });
  t.equal(
    line,
    'refresh: ours server 200 + Redis 30 + load 70 = 300 µs, peer server 500 + Redis 40 + load 60 = 600 µs; ' +
      'server peer/ours 2.50×, whole host 2.00×, ceiling with our server free 6.00×',
  );
  t.equal(cpuSplitLine('cc', undefined, { server: 1, redis: 1, loadGenerator: 1 }), 'cc: CPU per request unknown (no /proc)');
});

t.test('cpuMeter reads the CPU time of real processes between start and stop', async (t) => {
  const meter = cpuMeter(process.pid, process.pid);
  meter.start();
  // 300 ms of CPU in this process, however long a loaded host takes to give it.
  const spent = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  };
  const from = spent();
  while (spent() - from < 0.3);
  const split = meter.stop(10);
  t.ok(split, 'read from /proc');
  t.equal(split!.requests, 10);
  t.ok(split!.loadGenerator >= 0.3, `load generator (this process, process.cpuUsage) ${split!.loadGenerator} s`);
  // /proc counts in ticks of 10 ms; both read the same process.
  t.ok(split!.server >= 0.28, `server (this process, /proc) ${split!.server} s`);
  t.ok(Math.abs(split!.server - split!.loadGenerator) < 0.05, 'the two readings of one process agree');
  t.ok(Math.abs(split!.redis - split!.server) <= 0.011, 'the same pid read twice: the same time, to a tick');
  t.equal(cpuMeter(undefined, process.pid).stop(1), undefined, 'no pid: unknown, never zero');
});

t.test('ceilingOf: a variant adding only its cryptography, on cores shared with the load generator', async (t) => {
  const load = { requestsPerSecond: 1, completed: 1000, p50Ms: 1, p99Ms: 2, non2xx: 0, errors: 0, statusCodes: {} };
  const plain = [
    { ...load, serverCpuSeconds: 0.05, loadCpuSeconds: 0.03 },
    { ...load, serverCpuSeconds: 0.07, loadCpuSeconds: 0.03 },
  ];
  // server 60 µs + load 30 µs per request; a 45 µs verification: 90 / 135.
  const ceiling = ceilingOf(plain, 45)!;
  t.same(
    [ceiling.server, ceiling.load, ceiling.crypto, ceiling.ratio].map((n) => Number(n.toFixed(6))),
    [60, 30, 45, Number((90 / 135).toFixed(6))],
  );
  t.equal(ceilingOf([{ ...plain[0]!, serverCpuSeconds: undefined }], 45), undefined, 'without /proc: unknown');
  const lines = ceilingLines(50_000, 20_000, plain, plain);
  t.equal(lines[0], '(c) ES256 verification, one core, tight loop: 20,000 verifications/s = 50 µs each, 2.5 signatures');
  t.equal(
    lines[2],
    '  one P-256 verification more than (g) basic: (server 60 µs + load 30 µs) / (… + 50 µs) = 0.64 (goals: pkjwt/basic and exchange/cc 0.65, DPoP and workload/cc 0.6)',
  );
  t.equal(
    lines[3],
    '  one ES256 signature more than (f) without openid: (server 60 µs + load 30 µs) / (… + 20 µs) = 0.82 (goal: ES256 ID token 0.85×)',
  );
});

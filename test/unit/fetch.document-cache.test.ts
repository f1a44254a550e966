import t from 'tap';
import { METADATA_DOCUMENT_CACHE_LIMITS } from '../../src/clients/metadata-documents.js';
import { DocumentCache, type Loaded } from '../../src/fetch/document-cache.js';
import { FetchFailed } from '../../src/fetch/errors.js';
import type { Timer } from '../../src/fetch/fetch-slots.js';
import { cacheLifetime, freshnessLifetime } from '../../src/fetch/freshness.js';

t.test('freshness from Cache-Control (RFC 9111 §5.2.2) within bounds', async (t) => {
  t.equal(freshnessLifetime(undefined, undefined), undefined, 'no header: nothing said');
  t.equal(freshnessLifetime('public', undefined), undefined);
  t.equal(freshnessLifetime('public, max-age=600', undefined), 600);
  t.equal(freshnessLifetime('MAX-AGE="300"', undefined), 300, 'names are case-insensitive; quoted values allowed');
  t.equal(freshnessLifetime('max-age=600', '100'), 500, 'Age is subtracted (§4.2.3)');
  t.equal(freshnessLifetime('max-age=600', '900'), 0);
  t.equal(freshnessLifetime('max-age=600, no-store', undefined), 0, 'no-store');
  t.equal(freshnessLifetime('no-cache', undefined), 0, 'no-cache: we never revalidate, so it is not kept');
  t.equal(freshnessLifetime('max-age=60, max-age=600', undefined), 0, 'a repeated max-age is stale (§4.2.1)');
  t.equal(freshnessLifetime('max-age=soon', undefined), 0, 'a malformed max-age is stale');

  const bounds = { minSeconds: 60, maxSeconds: 86_400 };
  t.equal(cacheLifetime('max-age=3600', undefined, bounds), 3600);
  t.equal(cacheLifetime('max-age=5', undefined, bounds), 60, 'raised to the minimum');
  t.equal(cacheLifetime('no-store', undefined, bounds), 60, 'the minimum applies to no-store too');
  t.equal(cacheLifetime('max-age=31536000', undefined, bounds), 86_400, 'lowered to the maximum');
  t.equal(cacheLifetime(undefined, undefined, bounds), 60, 'nothing said: the minimum');
  t.equal(cacheLifetime('no-store', undefined, { minSeconds: 0, maxSeconds: 86_400 }), 0, 'with a minimum of 0, no-store is honoured');
});

t.test('the document cache', async (t) => {
  let now = 1_000_000;
  const clock = () => now;
  const limits = { maxEntries: 3, failureSeconds: 10, maxConcurrentLoads: 2, maxLoadsPerHost: 2, maxQueuedLoads: 0, queueWaitMs: 1000 };
  /** Waits for a slot never end by themselves here: a test that needs one to end uses fetch.fetch-slots.test.ts's way. */
  const noTimeout: Timer = () => () => undefined;
  /** A load that runs until the test releases it (or fails it). */
  const pendingLoads = () => {
    const pending: Array<{ resolve: (value: Loaded<string>) => void; reject: (err: unknown) => void }> = [];
    const load = () => new Promise<Loaded<string>>((resolve, reject) => pending.push({ resolve, reject }));
    return { load, pending };
  };
  const failing = (err: FetchFailed) => {
    const calls = { count: 0 };
    const load = async (): Promise<Loaded<string>> => {
      calls.count += 1;
      throw err;
    };
    return Object.assign(load, { calls });
  };
  const loader = (value: string, seconds: number) => {
    const calls = { count: 0 };
    const load = async (): Promise<Loaded<string>> => {
      calls.count += 1;
      return { value, seconds };
    };
    return Object.assign(load, { calls });
  };

  t.test('a value is used for the seconds its load allowed, then loaded again', async (t) => {
    const cache = new DocumentCache<string>(limits, clock);
    const load = loader('doc', 60);
    t.equal(await cache.get('a', load), 'doc');
    now += 59_999;
    t.equal(await cache.get('a', load), 'doc');
    t.equal(load.calls.count, 1, 'fresh: not loaded again');
    now += 1;
    t.equal(await cache.get('a', load), 'doc');
    t.equal(load.calls.count, 2, 'expired: loaded again');
  });

  t.test('reload loads anew whatever is cached; a load running is shared', async (t) => {
    const cache = new DocumentCache<string>(limits, clock, noTimeout);
    const first = loader('v1', 60);
    t.equal(await cache.get('a', first), 'v1');
    const second = loader('v2', 60);
    t.equal(await cache.reload('a', second), 'v2', 'a fresh value is replaced');
    t.equal(await cache.get('a', first), 'v2', 'and kept');
    t.equal(first.calls.count, 1);
    const { load, pending } = pendingLoads();
    const running = cache.reload('a', load);
    const joined = cache.reload('a', second);
    await new Promise(setImmediate); // the load starts once its slot is granted
    pending[0]?.resolve({ value: 'v3', seconds: 60 });
    t.same(await Promise.all([running, joined]), ['v3', 'v3'], 'one load for both');
    t.equal(second.calls.count, 1);
  });

  t.test('a value allowed 0 seconds is not kept', async (t) => {
    const cache = new DocumentCache<string>(limits, clock);
    const load = loader('doc', 0);
    await cache.get('a', load);
    await cache.get('a', load);
    t.equal(load.calls.count, 2);
    t.equal(cache.size, 0);
  });

  t.test('concurrent lookups of one key share one load', async (t) => {
    const cache = new DocumentCache<string>(limits, clock, noTimeout);
    const slow = pendingLoads();
    const lookups = Array.from({ length: 20 }, () => cache.get('a', slow.load));
    await new Promise(setImmediate); // the load starts once its slot is granted
    const more = Array.from({ length: 5 }, () => cache.get('a', slow.load));
    slow.pending[0]?.resolve({ value: 'doc', seconds: 60 });
    t.same(await Promise.all([...lookups, ...more]), Array(25).fill('doc'));
    t.equal(slow.pending.length, 1, 'one load for 25 lookups');
  });

  t.test('a failed load is remembered for failureSeconds, then tried again', async (t) => {
    const cache = new DocumentCache<string>(limits, clock);
    let loads = 0;
    const failing = async (): Promise<Loaded<string>> => {
      loads += 1;
      throw new FetchFailed('status', 'answered HTTP 404, not 200');
    };
    await t.rejects(cache.get('bad', failing), { code: 'status' });
    now += 9_999;
    await t.rejects(cache.get('bad', failing), { code: 'status' });
    t.equal(loads, 1, 'not fetched again within 10 s');
    now += 1;
    await t.rejects(cache.get('bad', failing), { code: 'status' });
    t.equal(loads, 2, 'fetched again after 10 s');
    const recovered = loader('fixed', 60);
    now += 10_000;
    t.equal(await cache.get('bad', recovered), 'fixed', 'a fixed document is used as soon as the back-off ends');
  });

  t.test('loads at once are bounded: the limit is reserved before loading', async (t) => {
    const cache = new DocumentCache<string>(limits, clock);
    const pending: Array<() => void> = [];
    const hanging = () => new Promise<Loaded<string>>((resolve) => pending.push(() => resolve({ value: 'doc', seconds: 60 })));
    const first = cache.get('a', hanging);
    const second = cache.get('b', hanging);
    await t.rejects(cache.get('c', hanging), { code: 'busy', message: '2 fetches are already running and 0 waiting' });
    t.equal(pending.length, 2, 'the third load never started');
    for (const release of pending) release();
    t.same(await Promise.all([first, second]), ['doc', 'doc']);
    t.equal(await cache.get('c', loader('doc c', 60)), 'doc c', 'free again once they finished');
  });

  t.test('past maxEntries the least recently used entry goes', async (t) => {
    const cache = new DocumentCache<string>(limits, clock);
    for (const key of ['a', 'b', 'c']) await cache.get(key, loader(key, 600));
    await cache.get('a', loader('unused', 600)); // a is now the most recently used
    await cache.get('d', loader('d', 600));
    t.equal(cache.size, 3);
    const reloadB = loader('b again', 600);
    t.equal(await cache.get('b', reloadB), 'b again', 'b, the least recently used, was dropped');
    const keptA = loader('unused', 600);
    t.equal(await cache.get('a', keptA), 'a');
    t.equal(keptA.calls.count, 0, 'a was kept');
  });

  t.test('one host cannot take the slots from others (the issue: 32 made-up URLs of one slow host, with the defaults)', async (t) => {
    const cache = new DocumentCache<string>(METADATA_DOCUMENT_CACHE_LIMITS, clock, noTimeout);
    const slow = pendingLoads();
    const lookups = Array.from({ length: 32 }, (_, n) => cache.get(`https://slow.example/doc?n=${n}`, slow.load));
    const refused = await Promise.allSettled(lookups.slice(4));
    t.same(
      refused.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as FetchFailed).message : outcome.status)),
      Array(28).fill('4 fetches from slow.example are already running or waiting'),
      'past 4, refused at once: waiting for its own host would only fill the queue',
    );
    t.same(cache.loads, { running: 4, waiting: 0 });
    t.equal(await cache.get('https://good.example/client.json', loader('good', 60)), 'good', 'another host still fetches at once');
    await new Promise(setImmediate);
    for (const { resolve } of slow.pending) resolve({ value: 'slow', seconds: 60 });
    t.same(await Promise.all(lookups.slice(0, 4)), Array(4).fill('slow'));
    t.same(cache.loads, { running: 0, waiting: 0 });
  });

  t.test('a host that failed as a whole is not contacted for failureSeconds, whatever the URL; a URL failing alone is', async (t) => {
    const cache = new DocumentCache<string>(limits, clock, noTimeout);
    const refused = new FetchFailed('network', 'connect ECONNREFUSED 192.0.2.7:443', { hostWide: true });
    await t.rejects(cache.get('https://down.example/client.json', failing(refused)), { code: 'network' });
    const other = loader('doc', 60);
    const backingOff = {
      code: 'backing_off',
      message: 'down.example is not contacted for 10 s after a failed fetch: connect ECONNREFUSED 192.0.2.7:443',
    };
    await t.rejects(cache.get('https://down.example/client.json?n=2', other), backingOff, 'a made-up query string does not dodge it');
    t.equal(other.calls.count, 0, 'nothing was fetched');
    t.equal(await cache.get('https://down.example:8443/client.json', loader('port 8443', 60)), 'port 8443', 'another port is another host');
    now += 9_999;
    await t.rejects(cache.get('https://down.example/other.json', other), backingOff);
    now += 1;
    t.equal(await cache.get('https://down.example/client.json?n=2', other), 'doc', 'after failureSeconds, fetched again');

    const missing = failing(new FetchFailed('status', 'answered HTTP 404, not 200'));
    await t.rejects(cache.get('https://up.example/missing.json', missing), { code: 'status' });
    t.equal(await cache.get('https://up.example/client.json', loader('up', 60)), 'up', 'a 404 is the URL’s: the host is not backed off');
  });

  t.test('lookups waiting for a slot do not contact a host that failed meanwhile', async (t) => {
    const cache = new DocumentCache<string>({ ...limits, maxQueuedLoads: 1 }, clock, noTimeout);
    const other = pendingLoads();
    const down = pendingLoads();
    const first = cache.get('https://other.example/a', other.load);
    const failed = cache.get('https://down.example/a', down.load);
    const waiting = loader('never', 60);
    const queued = cache.get('https://down.example/b', waiting);
    t.same(cache.loads, { running: 2, waiting: 1 });
    await new Promise(setImmediate); // the loads start once their slots are granted
    down.pending[0]?.reject(new FetchFailed('timeout', 'no connection within 5000 ms', { hostWide: true }));
    await t.rejects(failed, { code: 'timeout' });
    await t.rejects(queued, { code: 'backing_off' });
    t.equal(waiting.calls.count, 0);
    other.pending[0]?.resolve({ value: 'a', seconds: 60 });
    t.equal(await first, 'a');
  });
});

import t from 'tap';
import { DocumentCache, type Loaded } from '../../src/fetch/document-cache.js';
import { FetchFailed } from '../../src/fetch/errors.js';
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
  const limits = { maxEntries: 3, failureSeconds: 10, maxConcurrentLoads: 2 };
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

  t.test('a value allowed 0 seconds is not kept', async (t) => {
    const cache = new DocumentCache<string>(limits, clock);
    const load = loader('doc', 0);
    await cache.get('a', load);
    await cache.get('a', load);
    t.equal(load.calls.count, 2);
    t.equal(cache.size, 0);
  });

  t.test('concurrent lookups of one key share one load', async (t) => {
    const cache = new DocumentCache<string>(limits, clock);
    let release: (value: Loaded<string>) => void = () => undefined;
    let loads = 0;
    const slow = () => {
      loads += 1;
      return new Promise<Loaded<string>>((resolve) => (release = resolve));
    };
    const lookups = Array.from({ length: 20 }, () => cache.get('a', slow));
    release({ value: 'doc', seconds: 60 });
    t.same(await Promise.all(lookups), Array(20).fill('doc'));
    t.equal(loads, 1, 'one load for 20 lookups');
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
    await t.rejects(cache.get('c', hanging), { code: 'busy', message: '2 fetches are already running' });
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
});

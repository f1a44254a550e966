import t from 'tap';
import { FetchSlots, type ReleaseSlot, type Timer } from '../../src/fetch/fetch-slots.js';

/** Admission of fetches: the bounds at once and per host, the queue and its wait (ended by the test's timer). */

const LIMITS = { maxConcurrentLoads: 2, maxLoadsPerHost: 2, maxQueuedLoads: 2, queueWaitMs: 1500 };

/** A timer the test fires; records the waits asked for. */
function testTimer() {
  const waits: Array<{ ms: number; fire: () => void; cancelled: boolean }> = [];
  const timer: Timer = (ms, fire) => {
    const wait = { ms, fire, cancelled: false };
    waits.push(wait);
    return () => void (wait.cancelled = true);
  };
  return { timer, waits };
}

/** Whether `promise` has settled, without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  return (
    (await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      new Promise((resolve) => setImmediate(() => resolve(pending))),
    ])) !== pending
  );
}

t.test('a fetch that finds every slot taken waits, first come first served, and starts when one is released', async (t) => {
  const { timer, waits } = testTimer();
  const slots = new FetchSlots(LIMITS, timer);
  const a = await slots.acquire('a.example');
  const b = await slots.acquire('b.example');
  const c = slots.acquire('c.example');
  const d = slots.acquire('d.example');
  t.same(slots.usage, { running: 2, waiting: 2 });
  t.same(
    waits.map((w) => w.ms),
    [1500, 1500],
    'each waits at most queueWaitMs',
  );
  t.notOk(await settled(c));
  b();
  const releaseC = await c;
  t.notOk(await settled(d), 'd is still second');
  t.ok(waits[0]?.cancelled, 'the wait of c ended when it started');
  t.same(slots.usage, { running: 2, waiting: 1 });
  a();
  const releaseD = await d;
  releaseC();
  releaseD();
  t.same(slots.usage, { running: 0, waiting: 0 });
});

t.test('past maxQueuedLoads a fetch is refused at once', async (t) => {
  const slots = new FetchSlots(LIMITS, testTimer().timer);
  await slots.acquire('a.example');
  await slots.acquire('b.example');
  void slots.acquire('c.example');
  void slots.acquire('d.example');
  await t.rejects(slots.acquire('e.example'), { code: 'busy', message: '2 fetches are already running and 2 waiting' });
});

t.test('a wait that runs out is refused, and gives its place back', async (t) => {
  const { timer, waits } = testTimer();
  const slots = new FetchSlots({ ...LIMITS, maxLoadsPerHost: 1 }, timer);
  const a = await slots.acquire('a.example');
  await slots.acquire('b.example');
  const waiting = slots.acquire('c.example');
  waits[0]?.fire();
  await t.rejects(waiting, { code: 'busy', message: 'no fetch slot came free within 1500 ms (2 fetches are running)' });
  t.same(slots.usage, { running: 2, waiting: 0 });
  const again = slots.acquire('c.example');
  t.same(slots.usage, { running: 2, waiting: 1 }, 'c.example may wait again: its place was given back');
  a();
  (await again)();
});

t.test('one host: running and waiting count together, and more is refused at once even with slots free', async (t) => {
  const slots = new FetchSlots({ ...LIMITS, maxConcurrentLoads: 4 }, testTimer().timer);
  const first = await slots.acquire('slow.example');
  await slots.acquire('slow.example:8443');
  await slots.acquire('slow.example');
  await t.rejects(slots.acquire('slow.example'), { code: 'busy', message: '2 fetches from slow.example are already running or waiting' });
  const other = slots.acquire('good.example');
  t.ok(await settled(other), 'another host still starts at once');
  first();
  first();
  t.same(slots.usage, { running: 3, waiting: 0 }, 'a slot released twice is freed once');
  const next: ReleaseSlot = await slots.acquire('slow.example');
  t.equal(typeof next, 'function', 'a released slot of the host is its to take again');
});

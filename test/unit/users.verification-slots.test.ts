import t from 'tap';
import { VerificationSlots } from '../../src/users/verification-slots.js';

/** A task that runs until its `finish` is called. */
function pending<T>(value: T) {
  let finish: () => void = () => undefined;
  let fail: (err: Error) => void = () => undefined;
  const started = { count: 0 };
  const task = () => {
    started.count += 1;
    return new Promise<T>((resolve, reject) => {
      finish = () => resolve(value);
      fail = reject;
    });
  };
  return { task, started, finish: () => finish(), fail: (err: Error) => fail(err) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

t.test('VerificationSlots: a cap on concurrent verifications with a bounded queue', async (t) => {
  t.test('runs up to the cap at once, queues up to the bound, refuses the rest at once', async (t) => {
    const slots = new VerificationSlots(2, 1);
    const tasks = Array.from({ length: 5 }, (_, i) => pending(i));
    const runs = tasks.map((task) => slots.run(task.task));
    await turn();
    t.same(
      tasks.map((task) => task.started.count),
      [1, 1, 0, 0, 0],
      'two run, one waits',
    );
    t.same(await runs[3], { admitted: false }, 'refused without waiting for any running task');
    t.same(await runs[4], { admitted: false });
    tasks[0]?.finish();
    t.same(await runs[0], { admitted: true, value: 0 });
    await turn();
    t.equal(tasks[2]?.started.count, 1, 'the waiting task got the freed slot');
    tasks[1]?.finish();
    tasks[2]?.finish();
    t.same(await Promise.all([runs[1], runs[2]]), [
      { admitted: true, value: 1 },
      { admitted: true, value: 2 },
    ]);
  });

  t.test('waiters are served first come, first served; a failing task frees its slot', async (t) => {
    const slots = new VerificationSlots(1, 3);
    const tasks = Array.from({ length: 4 }, (_, i) => pending(i));
    const order: number[] = [];
    const runs = tasks.map((task, i) =>
      slots.run(() => {
        order.push(i);
        return task.task();
      }),
    );
    await turn();
    tasks[0]?.fail(new Error('scrypt failed'));
    await t.rejects(runs[0] as Promise<unknown>, { message: 'scrypt failed' });
    for (const i of [1, 2, 3]) {
      await turn();
      tasks[i]?.finish();
      t.same(await runs[i], { admitted: true, value: i });
    }
    t.same(order, [0, 1, 2, 3]);
    const after = pending('again');
    const run = slots.run(after.task);
    await turn();
    t.equal(after.started.count, 1, 'every slot was given back: a new task starts at once');
    after.finish();
    t.same(await run, { admitted: true, value: 'again' });
  });

  t.test('with no queue, anything past the cap is refused', async (t) => {
    const slots = new VerificationSlots(1, 0);
    const first = pending('first');
    const running = slots.run(first.task);
    t.same(await slots.run(async () => 'second'), { admitted: false });
    first.finish();
    t.same(await running, { admitted: true, value: 'first' });
    t.same(await slots.run(async () => 'third'), { admitted: true, value: 'third' });
  });
});

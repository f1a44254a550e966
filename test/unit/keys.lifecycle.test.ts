import t from 'tap';
import type { KeyRecord } from '../../src/keys/key-file.js';
import {
  chainAlgorithms,
  chainOf,
  firstUnsignedInstant,
  isExpiredAt,
  isPublishedAt,
  keyStateAt,
  nextScheduledKey,
  signingAlgorithmsAt,
  signingKeyAt,
  signingKeyFor,
} from '../../src/keys/lifecycle.js';
import { planCleanup, planRevocation, planRotation, type RotationPlan } from '../../src/keys/plans.js';

const key = (kid: string, fields: Partial<KeyRecord> = {}): KeyRecord => ({
  kid,
  alg: 'ES256',
  created_at: 0,
  signs_from: 0,
  jwk: { kty: 'EC', kid, alg: 'ES256', d: 'x' },
  ...fields,
});
const TTL = 3600;
const DELAY = 300;
/** The folder after a plan: what it keeps, retires, extends and creates. */
const after = (plan: RotationPlan): KeyRecord[] => [...plan.keep, ...plan.retire, ...plan.extend.map((e) => e.key), ...plan.create];
const windows = (keys: KeyRecord[]) =>
  keys.map((k) => [k.kid, k.signs_from, k.signs_until, k.publish_until]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
const rotate = (keys: KeyRecord[], kid: string, now: number) =>
  after(planRotation(keys, key(kid, { created_at: now }), { now, delay: DELAY, accessTokenTtl: TTL }));
const revoke = (keys: KeyRecord[], kid: string, now: number, spare = 'spare') =>
  planRevocation(keys, kid, key(spare), { now, accessTokenTtl: TTL });
const prune = (keys: KeyRecord[], now: number) => planCleanup(keys, 'ES256', { now, accessTokenTtl: TTL, spare: key('spare') });

/** A key of the RS256 chain (the ID-token default). */
const rsa = (kid: string, fields: Partial<KeyRecord> = {}): KeyRecord => key(kid, { alg: 'RS256', ...fields });

/** A rotated at 100: A signs until 400 and is published until 4000; B signs from 400. */
const rotated = () => rotate([key('A')], 'B', 100);

t.test('nextScheduledKey: the scheduled key whose window opens first (the metrics gauge)', async (t) => {
  t.equal(nextScheduledKey([key('A')], 100), undefined, 'nothing scheduled');
  const keys = rotated();
  t.equal(nextScheduledKey(keys, 100)?.kid, 'B', 'B signs from 400');
  t.equal(nextScheduledKey(keys, 400), undefined, 'B signs now: no successor');
  const later = key('C', { created_at: 100, signs_from: 900 });
  t.equal(nextScheduledKey([...keys, later], 100)?.kid, 'B', 'the earliest of several');
  t.equal(nextScheduledKey([...keys, later], 500)?.kid, 'C');
  t.equal(nextScheduledKey([key('A'), key('empty', { signs_from: 900, signs_until: 900 })], 100), undefined, 'an empty window never signs');
});

t.test('signingKeyAt chooses by time alone', async (t) => {
  const old = key('old', { signs_from: 0, signs_until: 1000, publish_until: 1000 + TTL });
  const next = key('next', { created_at: 700, signs_from: 1000 });
  t.equal(signingKeyAt([old, next], 999)?.kid, 'old');
  t.equal(signingKeyAt([old, next], 1000)?.kid, 'next');
  t.equal(signingKeyAt([next], 999), undefined, 'nothing signs before its window');
  t.ok(isPublishedAt(next, 700) && isPublishedAt(old, 1000 + TTL - 1));
  t.notOk(isPublishedAt(old, 1000 + TTL));
});

t.test('firstUnsignedInstant: the invariant is that keys sign at every instant from now on', async (t) => {
  t.equal(firstUnsignedInstant([], 100), 100, 'no key: a gap now');
  t.equal(firstUnsignedInstant([key('A')], 100), undefined, 'an open-ended key covers everything');
  t.equal(firstUnsignedInstant([key('A', { signs_until: 400 })], 100), 400, 'a key that stops with no successor');
  t.equal(firstUnsignedInstant([key('A', { signs_until: 400 }), key('C', { signs_from: 500 })], 100), 400, 'a hole between two keys');
  const chain = [key('A', { signs_until: 400 }), key('B', { signs_from: 400, signs_until: 500 }), key('C', { signs_from: 500 })];
  t.equal(firstUnsignedInstant(chain, 100), undefined, 'windows that meet end to end');
  t.equal(firstUnsignedInstant([key('B', { signs_from: 400 })], 100), 100, 'a scheduled key alone leaves now unsigned');
  t.equal(firstUnsignedInstant([key('A', { signs_until: 400 })], 400), 400, 'a window ends before its end instant');
});

t.test('planRotation', async (t) => {
  t.test('the first key signs at once, whatever the delay', async (t) => {
    const plan = planRotation([], key('first'), { now: 100, delay: 300, accessTokenTtl: TTL });
    t.same(
      plan.create.map((k) => [k.kid, k.signs_from, k.signs_until]),
      [['first', 100, undefined]],
    );
    t.same(plan.retire, []);
  });

  t.test('a later key signs after the delay; the current one stops then and stays published for one token lifetime', async (t) => {
    const current = key('current', { signs_from: 0 });
    const plan = planRotation([current], key('new'), { now: 100, delay: 300, accessTokenTtl: TTL });
    t.same(
      plan.create.map((k) => [k.kid, k.signs_from]),
      [['new', 400]],
    );
    t.same(
      plan.retire.map((k) => [k.kid, k.signs_until, k.publish_until]),
      [['current', 400, 400 + TTL]],
    );
    const keys = after(plan);
    t.equal(signingKeyAt(keys, 399)?.kid, 'current');
    t.equal(signingKeyAt(keys, 400)?.kid, 'new');
  });

  t.test('rotating again during the delay shortens the pending key, never the old window', async (t) => {
    const old = key('old', { signs_from: 0, signs_until: 400, publish_until: 400 + TTL });
    const pending = key('pending', { created_at: 100, signs_from: 400 });
    const plan = planRotation([old, pending], key('newest'), { now: 200, delay: 300, accessTokenTtl: TTL });
    t.same(
      plan.keep.map((k) => k.kid),
      ['old'],
    );
    t.same(
      plan.retire.map((k) => [k.kid, k.signs_until]),
      [['pending', 500]],
    );
    t.same(
      plan.create.map((k) => [k.kid, k.signs_from]),
      [['newest', 500]],
    );
  });

  t.test('expired keys are removed by every run', async (t) => {
    const expired = key('expired', { signs_until: 10, publish_until: 50 });
    const current = key('current', { signs_from: 10 });
    const plan = planRotation([expired, current], key('new'), { now: 100, delay: 0, accessTokenTtl: TTL });
    t.same(
      plan.remove.map((k) => k.kid),
      ['expired'],
    );
    t.same(
      prune([expired, current], 100).remove.map((k) => k.kid),
      ['expired'],
    );
    t.same(
      prune([expired, current], 100).keep.map((k) => k.kid),
      ['current'],
    );
  });

  t.test('a key that stops with no successor is extended up to the new key', async (t) => {
    const orphan = key('orphan', { signs_until: 200, publish_until: 200 + TTL });
    const plan = planRotation([orphan], key('new'), { now: 100, delay: DELAY, accessTokenTtl: TTL });
    t.same(
      plan.extend.map((e) => [e.key.kid, e.from, e.key.signs_until, e.key.publish_until]),
      [['orphan', 200, 400, 400 + TTL]],
    );
    t.same(windows(after(plan)), [
      ['new', 400, undefined, undefined],
      ['orphan', 0, 400, 400 + TTL],
    ]);
  });

  t.test('with nothing signing now, the new key signs at once', async (t) => {
    const plan = planRotation([key('B', { signs_from: 400 })], key('new'), { now: 100, delay: DELAY, accessTokenTtl: TTL });
    t.same(
      plan.create.map((k) => [k.kid, k.signs_from]),
      [['new', 100]],
    );
    t.equal(firstUnsignedInstant(after(plan), 100), undefined);
  });
});

t.test('planRevocation', async (t) => {
  t.test('revoking a retired key just removes it', async (t) => {
    const retired = key('retired', { signs_until: 50, publish_until: 50 + TTL });
    const current = key('current', { signs_from: 50 });
    const plan = planRevocation([retired, current], 'retired', key('spare'), { now: 100, accessTokenTtl: TTL });
    t.same(
      plan.remove.map((k) => k.kid),
      ['retired'],
    );
    t.same(plan.create, []);
    t.same(plan.extend, []);
  });

  t.test('revoking the only key puts a replacement in at once', async (t) => {
    const plan = revoke([key('current')], 'current', 100);
    t.same(
      plan.remove.map((k) => k.kid),
      ['current'],
    );
    t.same(
      plan.create.map((k) => [k.kid, k.created_at, k.signs_from, k.signs_until]),
      [['spare', 100, 100, undefined]],
    );
    t.equal(plan.stopGap?.kid, 'spare');
  });

  t.test('revoke the current key: the replacement signs at once and hands over to the scheduled key', async (t) => {
    const plan = revoke(rotated(), 'A', 100);
    t.same(
      plan.remove.map((k) => k.kid),
      ['A'],
    );
    t.same(
      plan.create.map((k) => [k.kid, k.signs_from, k.signs_until, k.publish_until]),
      [['spare', 100, 400, 400 + TTL]],
    );
    t.same(plan.extend, []);
    const keys = after(plan);
    t.equal(signingKeyAt(keys, 100)?.kid, 'spare');
    t.equal(signingKeyAt(keys, 400)?.kid, 'B');
    t.equal(firstUnsignedInstant(keys, 100), undefined);
  });

  t.test('revoke the scheduled key: the current key signs on, for good', async (t) => {
    const plan = revoke(rotated(), 'B', 100);
    t.same(
      plan.remove.map((k) => k.kid),
      ['B'],
    );
    t.same(plan.create, [], 'no new key: the current one is already published everywhere');
    t.same(
      plan.extend.map((e) => [e.key.kid, e.from, e.key.signs_until, e.key.publish_until]),
      [['A', 400, undefined, undefined]],
    );
    t.equal(signingKeyAt(after(plan), 400)?.kid, 'A');
    t.equal(firstUnsignedInstant(after(plan), 100), undefined);
  });

  t.test('revoke both, current first: the replacement is extended, never a revoked key', async (t) => {
    const first = revoke(rotated(), 'A', 100, 'S1');
    const second = revoke(after(first), 'B', 120, 'S2');
    t.same(
      second.remove.map((k) => k.kid),
      ['B'],
    );
    t.same(
      second.extend.map((e) => [e.key.kid, e.from, e.key.signs_until]),
      [['S1', 400, undefined]],
    );
    t.same(windows(after(second)), [['S1', 100, undefined, undefined]]);
  });

  t.test('revoke both, scheduled first: the extended key, once revoked, gives way to a replacement', async (t) => {
    const first = revoke(rotated(), 'B', 100, 'S1');
    const second = revoke(after(first), 'A', 120, 'S2');
    t.same(
      second.remove.map((k) => k.kid),
      ['A'],
    );
    t.same(second.extend, []);
    t.same(windows(after(second)), [['S2', 120, undefined, undefined]]);
    t.equal(second.stopGap?.kid, 'S2');
  });

  t.test('revoke, then prune: the last key is never pruned', async (t) => {
    const revoked = after(revoke(rotated(), 'B', 100));
    for (const now of [4000, 100_000]) {
      const plan = prune(revoked, now);
      t.same(plan.remove, [], `at ${now}`);
      t.same(windows(after(plan)), [['A', 0, undefined, undefined]]);
    }
  });

  t.test('rotate twice, then revoke the middle key: the first signs on until the last takes over', async (t) => {
    const twice = rotate(rotate([key('A')], 'B', 100), 'C', 200);
    t.same(windows(twice), [
      ['A', 0, 400, 400 + TTL],
      ['B', 400, 500, 500 + TTL],
      ['C', 500, undefined, undefined],
    ]);
    const plan = revoke(twice, 'B', 250);
    t.same(
      plan.extend.map((e) => [e.key.kid, e.from, e.key.signs_until, e.key.publish_until]),
      [['A', 400, 500, 500 + TTL]],
    );
    const keys = after(plan);
    t.equal(signingKeyAt(keys, 450)?.kid, 'A');
    t.equal(signingKeyAt(keys, 500)?.kid, 'C');
    t.equal(firstUnsignedInstant(keys, 250), undefined);
  });
});

t.test('planCleanup', async (t) => {
  t.test('a retiring key stays while it is published, then goes', async (t) => {
    const keys = rotated();
    for (const now of [200, 400, 3999]) {
      const plan = prune(keys, now);
      t.same([plan.remove, plan.create, plan.extend], [[], [], []], `nothing changes at ${now}`);
    }
    const plan = prune(keys, 4000);
    t.same(
      plan.remove.map((k) => k.kid),
      ['A'],
    );
    t.same(
      after(plan).map((k) => k.kid),
      ['B'],
    );
  });

  t.test('a key that signs now is never deleted, even past its publication', async (t) => {
    const odd = key('odd', { publish_until: 50 });
    t.same(prune([odd], 100).remove, []);
  });

  t.test('a folder left with no signer (by an older version) gets a key that signs at once', async (t) => {
    const orphan = key('A', { signs_until: 400, publish_until: 400 + TTL });
    const published = prune([orphan], 1000);
    t.same(published.remove, [], 'the orphan is still published');
    t.same(
      published.create.map((k) => [k.kid, k.signs_from, k.signs_until]),
      [['spare', 1000, undefined]],
    );
    t.equal(published.stopGap?.kid, 'spare');
    const expired = prune([orphan], 5000);
    t.same(
      expired.remove.map((k) => k.kid),
      ['A'],
    );
    t.same(windows(after(expired)), [['spare', 5000, undefined, undefined]]);
  });
});

t.test('every sequence of rotate, prune and revoke keeps a key signing at every instant', async (t) => {
  type Op = 'rotate' | 'prune' | 0 | 1 | 2; // a number revokes the key at that place in signing order
  const OPS: Op[] = ['rotate', 'prune', 0, 1, 2];
  const STEPS = [0, 150, DELAY, DELAY + TTL];
  const DEPTH = 4;
  const failures: string[] = [];
  let kids = 0;
  let sequences = 0;

  const check = (trail: string, before: KeyRecord[], plan: RotationPlan, now: number, revoked?: string) => {
    const fail = (what: string) => failures.length < 20 && failures.push(`${trail}: ${what}`);
    const keys = after(plan);
    if (firstUnsignedInstant(keys, now) !== undefined) fail(`no key signs at ${firstUnsignedInstant(keys, now)}`);
    if (revoked && keys.some((k) => k.kid === revoked)) fail('the revoked key is still there');
    for (const k of plan.remove) if (k.kid !== revoked && !isExpiredAt(k, now)) fail(`deleted ${k.kid}, which signs or is published`);
    for (const k of keys) {
      if ((k.publish_until === undefined) !== (k.signs_until === undefined))
        fail(`${k.kid} is published for good but signs for a while, or the reverse`);
      if (k.signs_until !== undefined && (k.publish_until ?? 0) < k.signs_until + TTL)
        fail(`${k.kid} is unpublished before its last token expires`);
    }
    if (
      plan.stopGap &&
      (plan.stopGap.signs_from !== now ||
        signingKeyAt(
          before.filter((k) => k.kid !== revoked),
          now,
        ))
    ) {
      fail('a stop-gap that was not needed, or that does not sign at once');
    }
    const signerBefore = signingKeyAt(before, now);
    for (const k of plan.create) {
      if (k !== plan.stopGap && k.signs_from !== (signerBefore ? now + DELAY : now)) fail(`${k.kid} signs before verifiers could learn it`);
    }
  };

  const explore = (keys: KeyRecord[], now: number, depth: number, trail: string) => {
    sequences++;
    if (depth === DEPTH) return;
    for (const step of STEPS) {
      const at = now + step;
      const order = [...keys].sort((a, b) => a.signs_from - b.signs_from || a.created_at - b.created_at);
      for (const op of OPS) {
        const label = `${trail} +${step} ${op === 'rotate' || op === 'prune' ? op : `revoke#${op}`}`;
        const spare = key(`k${++kids}`, { created_at: at });
        let plan: RotationPlan;
        let revoked: string | undefined;
        if (op === 'rotate') plan = planRotation(keys, spare, { now: at, delay: DELAY, accessTokenTtl: TTL });
        else if (op === 'prune') plan = planCleanup(keys, 'ES256', { now: at, accessTokenTtl: TTL, spare });
        else {
          revoked = order[op]?.kid;
          if (!revoked) continue;
          plan = planRevocation(keys, revoked, spare, { now: at, accessTokenTtl: TTL });
        }
        check(label, keys, plan, at, revoked);
        explore(after(plan), at, depth + 1, label);
      }
    }
  };
  explore([key('k0')], 0, 0, 'first key at 0');
  t.same(failures, [], 'no sequence breaks a rule');
  t.ok(sequences > 30_000, `${sequences} sequences explored`);
});

t.test('a chain per algorithm', async (t) => {
  t.test('the signer of an algorithm is the newest key of that algorithm in its window, never one of another', async (t) => {
    const es = key('es', { created_at: 0 });
    const rs = rsa('rs', { created_at: 50, signs_from: 50 });
    const keys = [es, rs];
    t.equal(signingKeyFor(keys, 'ES256', 100)?.kid, 'es', 'a newer RS256 key does not outrank the ES256 signer');
    t.equal(signingKeyFor(keys, 'RS256', 100)?.kid, 'rs');
    t.equal(signingKeyFor(keys, 'RS256', 10), undefined, 'RS256 signs from 50: nothing before, whatever ES256 does');
    t.equal(signingKeyFor(keys, 'PS256', 100), undefined, 'no chain');
    t.same(signingAlgorithmsAt(keys, 10), ['ES256']);
    t.same(signingAlgorithmsAt(keys, 100), ['ES256', 'RS256']);
    t.same(chainAlgorithms([rs, key('ed', { alg: 'EdDSA' }), es]), ['ES256', 'EdDSA', 'RS256'], 'in the order of SIGNING_ALGORITHMS');
    t.same(
      chainOf(keys, 'RS256').map((k) => k.kid),
      ['rs'],
    );
    t.equal(keyStateAt(es, keys, 100), 'signing', 'each chain has its own signing key');
    t.equal(keyStateAt(rs, keys, 100), 'signing');
  });

  t.test('a new chain starts at once beside a signing one, which it neither waits for nor retires', async (t) => {
    const plan = planRotation([key('es')], rsa('rs', { created_at: 100 }), { now: 100, delay: DELAY, accessTokenTtl: TTL });
    t.same(
      plan.create.map((k) => [k.kid, k.alg, k.signs_from, k.signs_until]),
      [['rs', 'RS256', 100, undefined]],
    );
    t.same([plan.keep, plan.retire, plan.extend, plan.remove], [[], [], [], []], 'the ES256 chain is not part of the plan');
  });

  t.test('two chains rotate independently: a successor retires only the predecessor of its own algorithm', async (t) => {
    const start = [key('E1'), rsa('R1')];
    const rotateIn = (keys: KeyRecord[], fresh: KeyRecord, now: number) => {
      const plan = planRotation(keys, fresh, { now, delay: DELAY, accessTokenTtl: TTL });
      const touched = new Set(after(plan).map((k) => k.kid));
      return [...keys.filter((k) => !touched.has(k.kid) && !plan.remove.some((r) => r.kid === k.kid)), ...after(plan)];
    };
    const es = rotateIn(start, key('E2', { created_at: 100 }), 100);
    t.same(windows(es), [
      ['E1', 0, 400, 400 + TTL],
      ['E2', 400, undefined, undefined],
      ['R1', 0, undefined, undefined],
    ]);
    const both = rotateIn(es, rsa('R2', { created_at: 1000 }), 1000);
    t.same(windows(both), [
      ['E1', 0, 400, 400 + TTL],
      ['E2', 400, undefined, undefined],
      ['R1', 0, 1300, 1300 + TTL],
      ['R2', 1300, undefined, undefined],
    ]);
    t.same(
      [399, 400, 1299, 1300].map((now) => [signingKeyFor(both, 'ES256', now)?.kid, signingKeyFor(both, 'RS256', now)?.kid]),
      [
        ['E1', 'R1'],
        ['E2', 'R1'],
        ['E2', 'R1'],
        ['E2', 'R2'],
      ],
    );
    t.equal(nextScheduledKey(chainOf(both, 'ES256'), 1000), undefined, 'no ES256 successor: R2 is another chain');
    t.equal(nextScheduledKey(chainOf(both, 'RS256'), 1000)?.kid, 'R2');
    const cleaned = planCleanup(both, 'ES256', { now: 400 + TTL, accessTokenTtl: TTL });
    t.same(
      [cleaned.remove.map((k) => k.kid), cleaned.keep.map((k) => k.kid)],
      [['E1'], ['E2']],
      'prune of ES256 deletes E1 and leaves the RS256 chain out',
    );
  });

  t.test('prune gives a chain with no signer a stop-gap of its algorithm, and needs one only then', async (t) => {
    const orphan = rsa('R', { signs_until: 400, publish_until: 400 + TTL });
    const keys = [key('E'), orphan];
    const plan = planCleanup(keys, 'RS256', { now: 1000, accessTokenTtl: TTL, spare: rsa('spare') });
    t.same(
      plan.create.map((k) => [k.kid, k.alg, k.signs_from]),
      [['spare', 'RS256', 1000]],
    );
    t.same(
      plan.keep.map((k) => k.kid),
      ['R'],
    );
    t.throws(() => planCleanup(keys, 'RS256', { now: 1000, accessTokenTtl: TTL }), {
      message: 'no key signs now and no replacement was provided',
    });
    t.same(planCleanup(keys, 'ES256', { now: 1000, accessTokenTtl: TTL }).create, [], 'the ES256 chain signs: no spare needed');
    t.throws(() => planCleanup(keys, 'RS256', { now: 1000, accessTokenTtl: TTL, spare: key('spare') }), {
      message: 'a spare of chain RS256 must be an RS256 key, not ES256',
    });
  });

  t.test("revoke: the replacement keeps the revoked key's algorithm; the other chains are untouched", async (t) => {
    const keys = [key('E'), rsa('R')];
    const plan = planRevocation(keys, 'R', rsa('spare'), { now: 100, accessTokenTtl: TTL });
    t.same(
      [plan.remove.map((k) => k.kid), plan.create.map((k) => [k.kid, k.alg, k.signs_from]), plan.keep],
      [['R'], [['spare', 'RS256', 100]], []],
    );
    t.equal(plan.stopGap?.kid, 'spare');
    t.throws(() => planRevocation(keys, 'R', key('spare'), { now: 100, accessTokenTtl: TTL }), {
      message: "the replacement of R must keep its chain's algorithm, not ES256",
    });
  });
});

t.test('two chains: every sequence of rotate, prune and revoke keeps each chain signing, and touches only its own chain', async (t) => {
  const ALGS = ['ES256', 'RS256'] as const;
  type Op = ['rotate' | 'prune', (typeof ALGS)[number]] | ['revoke', number];
  const OPS: Op[] = [
    ['rotate', 'ES256'],
    ['rotate', 'RS256'],
    ['prune', 'ES256'],
    ['prune', 'RS256'],
    ['revoke', 0],
    ['revoke', 1],
    ['revoke', 2],
  ];
  const STEPS = [0, DELAY, DELAY + TTL];
  const failures: string[] = [];
  let kids = 0;
  let sequences = 0;
  const explore = (keys: KeyRecord[], now: number, depth: number, trail: string) => {
    sequences++;
    if (depth === 3) return;
    for (const step of STEPS) {
      const at = now + step;
      for (const op of OPS) {
        const label = `${trail} +${step} ${op.join(' ')}`;
        let plan: RotationPlan;
        let alg: KeyRecord['alg'];
        if (op[0] === 'revoke') {
          const revoked = [...keys].sort((a, b) => a.signs_from - b.signs_from || a.created_at - b.created_at)[op[1]];
          if (!revoked) continue;
          alg = revoked.alg;
          plan = planRevocation(keys, revoked.kid, key(`k${++kids}`, { alg, created_at: at }), { now: at, accessTokenTtl: TTL });
        } else {
          alg = op[1];
          const fresh = key(`k${++kids}`, { alg, created_at: at });
          plan =
            op[0] === 'rotate'
              ? planRotation(keys, fresh, { now: at, delay: DELAY, accessTokenTtl: TTL })
              : planCleanup(keys, alg, { now: at, accessTokenTtl: TTL, spare: fresh });
        }
        const planned = [...after(plan), ...plan.remove];
        if (planned.some((k) => k.alg !== alg) && failures.length < 20) failures.push(`${label}: the plan touches another chain`);
        const next = [...keys.filter((k) => k.alg !== alg), ...after(plan)];
        for (const chain of ALGS) {
          if (firstUnsignedInstant(chainOf(next, chain), at) !== undefined && failures.length < 20)
            failures.push(`${label}: ${chain} has a gap`);
        }
        explore(next, at, depth + 1, label);
      }
    }
  };
  explore([key('k0'), rsa('r0')], 0, 0, 'ES256 and RS256 keys at 0');
  t.same(failures, [], 'no sequence breaks a rule');
  t.ok(sequences > 5_000, `${sequences} sequences explored`);
});

import t from 'tap';
import type { KeyRecord } from '../src/keys/key-file.js';
import { isPublishedAt, planCleanup, planRevocation, planRotation, signingKeyAt } from '../src/keys/lifecycle.js';

const key = (kid: string, fields: Partial<KeyRecord> = {}): KeyRecord => ({
  kid,
  alg: 'ES256',
  created_at: 0,
  signs_from: 0,
  jwk: { kty: 'EC', kid, alg: 'ES256', d: 'x' },
  ...fields,
});
const TTL = 3600;

t.test('signingKeyAt chooses by time alone', async (t) => {
  const old = key('old', { signs_from: 0, signs_until: 1000, publish_until: 1000 + TTL });
  const next = key('next', { created_at: 700, signs_from: 1000 });
  t.equal(signingKeyAt([old, next], 999)?.kid, 'old');
  t.equal(signingKeyAt([old, next], 1000)?.kid, 'next');
  t.equal(signingKeyAt([next], 999), undefined, 'nothing signs before its window');
  t.ok(isPublishedAt(next, 700) && isPublishedAt(old, 1000 + TTL - 1));
  t.notOk(isPublishedAt(old, 1000 + TTL));
});

t.test('planRotation', async (t) => {
  t.test('the first key signs at once, whatever the delay', async (t) => {
    const plan = planRotation([], key('first'), { now: 100, delay: 300, accessTokenTtl: TTL });
    t.same(plan.create.map((k) => [k.kid, k.signs_from, k.signs_until]), [['first', 100, undefined]]);
    t.same(plan.retire, []);
  });

  t.test('a later key signs after the delay; the current one stops then and stays published for one token lifetime', async (t) => {
    const current = key('current', { signs_from: 0 });
    const plan = planRotation([current], key('new'), { now: 100, delay: 300, accessTokenTtl: TTL });
    t.same(plan.create.map((k) => [k.kid, k.signs_from]), [['new', 400]]);
    t.same(plan.retire.map((k) => [k.kid, k.signs_until, k.publish_until]), [['current', 400, 400 + TTL]]);
    const after = [...plan.create, ...plan.retire];
    t.equal(signingKeyAt(after, 399)?.kid, 'current');
    t.equal(signingKeyAt(after, 400)?.kid, 'new');
  });

  t.test('rotating again during the delay shortens the pending key, never the old window', async (t) => {
    const old = key('old', { signs_from: 0, signs_until: 400, publish_until: 400 + TTL });
    const pending = key('pending', { created_at: 100, signs_from: 400 });
    const plan = planRotation([old, pending], key('newest'), { now: 200, delay: 300, accessTokenTtl: TTL });
    t.same(plan.keep.map((k) => k.kid), ['old']);
    t.same(plan.retire.map((k) => [k.kid, k.signs_until]), [['pending', 500]]);
    t.same(plan.create.map((k) => [k.kid, k.signs_from]), [['newest', 500]]);
  });

  t.test('expired keys are removed by every run', async (t) => {
    const expired = key('expired', { signs_until: 10, publish_until: 50 });
    const current = key('current', { signs_from: 10 });
    const plan = planRotation([expired, current], key('new'), { now: 100, delay: 0, accessTokenTtl: TTL });
    t.same(plan.remove.map((k) => k.kid), ['expired']);
    t.same(planCleanup([expired, current], 100).remove.map((k) => k.kid), ['expired']);
    t.same(planCleanup([expired, current], 100).keep.map((k) => k.kid), ['current']);
  });
});

t.test('planRevocation', async (t) => {
  t.test('revoking a retired key just removes it', async (t) => {
    const retired = key('retired', { signs_until: 50, publish_until: 50 + TTL });
    const current = key('current', { signs_from: 50 });
    const plan = planRevocation([retired, current], 'retired', key('spare'), { now: 100, accessTokenTtl: TTL });
    t.same(plan.remove.map((k) => k.kid), ['retired']);
    t.same(plan.create, []);
  });

  t.test('revoking the signing key puts a replacement in at once', async (t) => {
    const current = key('current', { signs_from: 0 });
    const plan = planRevocation([current], 'current', key('spare'), { now: 100, accessTokenTtl: TTL });
    t.same(plan.remove.map((k) => k.kid), ['current']);
    t.same(plan.create.map((k) => [k.kid, k.signs_from, k.signs_until]), [['spare', 100, undefined]]);
  });

  t.test('the replacement hands over to a key already scheduled', async (t) => {
    const current = key('current', { signs_from: 0, signs_until: 400, publish_until: 400 + TTL });
    const pending = key('pending', { signs_from: 400 });
    const plan = planRevocation([current, pending], 'current', key('spare'), { now: 100, accessTokenTtl: TTL });
    t.same(plan.create.map((k) => [k.kid, k.signs_from, k.signs_until, k.publish_until]), [['spare', 100, 400, 400 + TTL]]);
    t.equal(signingKeyAt([...plan.keep, ...plan.create], 100)?.kid, 'spare');
    t.equal(signingKeyAt([...plan.keep, ...plan.create], 400)?.kid, 'pending');
  });
});

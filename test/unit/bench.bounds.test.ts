import t from 'tap';
import { boundRoundLines, boundsLine } from '../../bench/bounds-phase.js';
import { meteredLoad } from '../helpers/load-results.js';

const result = (requestsPerSecond: number, server?: number, load?: number) => meteredLoad(requestsPerSecond, { server, load });

t.test('boundsLine: each variant against the plain bound, rates as medians, CPU over all rounds', async (t) => {
  const cost = {
    // server 40 + load 15 µs per request (0.04 s and 0.015 s over 1,000 requests, each round).
    plain: [result(30_000, 0.04, 0.015), result(28_000, 0.04, 0.015)],
    verifying: [result(15_000, 0.1, 0.02), result(14_000, 0.1, 0.02)],
    twoSignatures: [result(22_000, 0.06, 0.015), result(21_000, 0.06, 0.015)],
  };
  t.equal(
    boundsLine({ value: cost, host: undefined }, 'quiet'),
    '(i) the bounds, measured, medians of 2 alternated rounds [quiet]: bare Fastify + one ES256 signature on the pool ' +
      '29,000 req/s (server 40 + load 15 µs), + one P-256 verification of a client assertion, nothing else, 14,500 req/s ' +
      '(server 100 + load 20 µs): verifying/plain = 0.50; + a second signature 21,500 req/s (server 60 + load 15 µs): two/one = 0.74',
  );
  const unmetered = { ...cost, verifying: [result(15_000), result(14_000)] };
  t.match(boundsLine({ value: unmetered, host: undefined }, ''), /14,500 req\/s \(unknown\)/, 'without /proc: unknown, never zero');
});

t.test('boundRoundLines: bound/peer per round, ours/bound and the CPU of each side', async (t) => {
  const samples = {
    'bound cc': [result(30_000), result(27_000), result(33_000)],
    'peer cc': [result(10_000), result(10_000), result(12_000)],
    'ours cc': [result(25_000), result(24_000), result(26_000)],
  };
  const split = (server: number) => ({ server, redis: 0, loadGenerator: 0.015, requests: 1000 });
  const cpu = { 'bound cc': [split(0.04), split(0.04), split(0.04)], 'peer cc': [split(0.12), split(0.12), split(0.12)] };
  t.same(boundRoundLines(samples, cpu, 32), [
    'bound (bare Fastify + one ES256 signature on the pool), client_credentials, 32 connections, same rounds: 30,000 req/s; ' +
      'bound/peer = 3.00× (rounds 3.00 2.70 2.75); ours/bound = 0.83; CPU per request: bound server 40 + load 15 µs, server peer/bound 3.00×',
  ]);
  t.same(
    boundRoundLines(samples, {}, 32),
    [
      'bound (bare Fastify + one ES256 signature on the pool), client_credentials, 32 connections, same rounds: 30,000 req/s; ' +
        'bound/peer = 3.00× (rounds 3.00 2.70 2.75); ours/bound = 0.83',
    ],
    'no CPU samples: the rates alone',
  );
  t.same(boundRoundLines({ 'peer cc': samples['peer cc'], 'ours cc': samples['ours cc'] }, cpu, 32), [], 'no bound in the rounds: no line');
});

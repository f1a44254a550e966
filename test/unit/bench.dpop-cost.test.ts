import t from 'tap';
import { dpopCpu } from '../../bench/dpop-cost.js';
import { meteredLoad } from '../helpers/load-results.js';

const run = (server: number | undefined, completed = 1000) => meteredLoad(1, { server, completed });

t.test("dpopCpu: (e)'s server CPU per request without and with proofs, over all rounds together", async (t) => {
  // without: (0.05 + 0.11) s over 3,000 requests = 53.3 µs; with: 0.23 s over 2,000 = 115 µs.
  const cost = { plain: [run(0.05), run(0.11, 2000)], dpop: [run(0.12), run(0.11)] };
  t.equal(dpopCpu(cost), 'server CPU per request: without 53 µs, with 115 µs (+62)');
  t.equal(dpopCpu({ ...cost, dpop: [run(0.12), run(undefined)] }), 'server CPU per request: unknown (no /proc)', 'never zero');
});

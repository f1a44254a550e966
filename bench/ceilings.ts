import { cpuMicrosPerRequest, type MeteredLoad } from './metrics-cost.js';

/**
 * What a request that adds one piece of cryptography could serve at best, against the
 * request without it, on this host, from figures of the same run. On two cores shared by
 * the server and the load generator, both busy, the rate follows the CPU all of them spend
 * per request: a variant that added its cryptography and nothing else (no parsing, no
 * hand-off, no replay-cache write) would serve (server + load) / (server + load + crypto)
 * of the plain request's rate. A goal above that ceiling cannot be met steadily on this
 * host whatever the code around the cryptography does (a round that leaves some CPU idle
 * may beat it by a few hundredths); only a faster primitive, or a dearer plain request,
 * moves it.
 */
export interface Ceiling {
  /** The plain request's CPU per request: the server's (every thread) and the load generator's, in µs. */
  readonly server: number;
  readonly load: number;
  /** The cryptography's CPU, in µs. */
  readonly crypto: number;
  /** (server + load) / (server + load + crypto). */
  readonly ratio: number;
}

export function ceilingOf(plain: readonly MeteredLoad[], cryptoMicros: number): Ceiling | undefined {
  const [server, load] = [cpuMicrosPerRequest(plain), cpuMicrosPerRequest(plain, 'load')];
  if (server === undefined || load === undefined) return undefined;
  return { server, load, crypto: cryptoMicros, ratio: (server + load) / (server + load + cryptoMicros) };
}

/** `(c)` and the ceilings of the verification figures (against (g)'s basic) and of the ES256 ID token (against (f)'s plain redemption). */
export function ceilingLines(
  signsPerSecond: number,
  verifiesPerSecond: number,
  basic: readonly MeteredLoad[],
  plainRedemption: readonly MeteredLoad[],
): string[] {
  const [sign, verify] = [1e6 / signsPerSecond, 1e6 / verifiesPerSecond];
  const us = (n: number) => `${Math.round(n)} µs`;
  const lines = [
    `(c) ES256 verification, one core, tight loop: ${Math.round(verifiesPerSecond).toLocaleString('en-US')} verifications/s = ${us(verify)} each, ${(verify / sign).toFixed(1)} signatures`,
  ];
  const describe = (what: string, ceiling: Ceiling | undefined, goals: string) =>
    ceiling === undefined
      ? `  ${what}: unknown (no /proc)`
      : `  ${what}: (server ${us(ceiling.server)} + load ${us(ceiling.load)}) / (… + ${us(ceiling.crypto)}) = ${ceiling.ratio.toFixed(2)} (${goals})`;
  lines.push(
    'ceilings on these shared cores, were a variant to add its cryptography and nothing else:',
    describe(
      'one P-256 verification more than (g) basic',
      ceilingOf(basic, verify),
      'goals: pkjwt/basic and exchange/cc 0.65, DPoP and workload/cc 0.6',
    ),
    describe('one ES256 signature more than (f) without openid', ceilingOf(plainRedemption, sign), 'goal: ES256 ID token 0.85×'),
  );
  return lines;
}

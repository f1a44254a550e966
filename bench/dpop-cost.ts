import { pregeneratedProofs } from './dpop-proofs.js';
import type { LoadSettings, LoadTarget } from './load.js';
import { cpuMicrosPerRequest, measureMeteredLoad, type MeteredLoad } from './metrics-cost.js';

/** Each run with the server's CPU time (every thread), to say what a proof costs beyond its rate. */
export interface DpopCost {
  readonly plain: readonly MeteredLoad[];
  readonly dpop: readonly MeteredLoad[];
}

/** (e)'s server CPU per request, without and with proofs, over all rounds. */
export function dpopCpu(cost: DpopCost): string {
  const [plain, dpop] = [cpuMicrosPerRequest(cost.plain), cpuMicrosPerRequest(cost.dpop)];
  if (plain === undefined || dpop === undefined) return 'server CPU per request: unknown (no /proc)';
  return `server CPU per request: without ${Math.round(plain)} µs, with ${Math.round(dpop)} µs (+${Math.round(dpop - plain)})`;
}

/** One DPoP request first: the token must come back bound (token_type DPoP). */
async function expectDpopToken(target: LoadTarget): Promise<void> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: { ...target.headers, ...target.headersPerRequest?.() },
    body: target.body,
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"token_type":"DPoP"'))
    throw new Error(`DPoP token request answered ${response.status}: ${text}`);
}

/**
 * The same token request against one running server, first plain, then with a fresh DPoP
 * proof in each request. The proofs are signed before the phase (a client signs its own;
 * here that would take the server's CPU), enough for the warm-up and the run at half
 * again the plain rate: a replayed proof would be refused and fail the bench. Both runs
 * build each request through autocannon's setupRequest, so the load generator, which shares
 * the host's cores with the server, does the same work per request in both and the ratio
 * is the server's alone (as in phase (g)).
 */
export async function measureWithAndWithoutDpop(
  pid: number | undefined,
  target: LoadTarget,
  htu: string,
  settings: LoadSettings & { readonly rounds: number },
): Promise<DpopCost> {
  const plainTarget = { ...target, headersPerRequest: () => ({}) };
  const measure = (measured: LoadTarget) => measureMeteredLoad(pid, measured, settings);
  const plain = [await measure(plainTarget)];
  const dpop: MeteredLoad[] = [];
  const measureDpop = async () => {
    // Fresh proofs for each run: enough at half again the fastest plain rate seen so far.
    const ceiling = Math.max(...plain.map((r) => r.requestsPerSecond));
    const proofs = pregeneratedProofs(Math.ceil(ceiling * (settings.warmupSeconds + settings.durationSeconds) * 1.5) + 1000, htu);
    let next = 0;
    const dpopTarget = { ...target, headersPerRequest: () => ({ dpop: proofs[next++ % proofs.length] as string }) };
    if (dpop.length === 0) await expectDpopToken(dpopTarget);
    dpop.push(await measure(dpopTarget));
  };
  await measureDpop();
  // Then alternated rounds, the order reversed each time: medians even out drift on a noisy host.
  for (let round = 1; round < Math.max(2, settings.rounds); round += 1) {
    if (round % 2 === 1) {
      await measureDpop();
      plain.push(await measure(plainTarget));
    } else {
      plain.push(await measure(plainTarget));
      await measureDpop();
    }
  }
  return { plain, dpop };
}

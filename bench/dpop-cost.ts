import { pregeneratedProofs } from './dpop-proofs.js';
import { type LoadResult, type LoadSettings, type LoadTarget, measureLoad } from './load.js';

export interface DpopCost {
  readonly plain: readonly LoadResult[];
  readonly dpop: readonly LoadResult[];
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
  target: LoadTarget,
  htu: string,
  settings: LoadSettings & { readonly rounds: number },
): Promise<DpopCost> {
  const plainTarget = { ...target, headersPerRequest: () => ({}) };
  const plain = [await measureLoad(plainTarget, settings)];
  const dpop: LoadResult[] = [];
  const measureDpop = async () => {
    // Fresh proofs for each run: enough at half again the fastest plain rate seen so far.
    const ceiling = Math.max(...plain.map((r) => r.requestsPerSecond));
    const proofs = pregeneratedProofs(Math.ceil(ceiling * (settings.warmupSeconds + settings.durationSeconds) * 1.5) + 1000, htu);
    let next = 0;
    const dpopTarget = { ...target, headersPerRequest: () => ({ dpop: proofs[next++ % proofs.length] as string }) };
    if (dpop.length === 0) await expectDpopToken(dpopTarget);
    dpop.push(await measureLoad(dpopTarget, settings));
  };
  await measureDpop();
  // Then alternated rounds, the order reversed each time: medians even out drift on a noisy host.
  for (let round = 1; round < Math.max(2, settings.rounds); round += 1) {
    if (round % 2 === 1) {
      await measureDpop();
      plain.push(await measureLoad(plainTarget, settings));
    } else {
      plain.push(await measureLoad(plainTarget, settings));
      await measureDpop();
    }
  }
  return { plain, dpop };
}

import { pregeneratedProofs } from './dpop-proofs.js';
import { type LoadResult, type LoadSettings, type LoadTarget, measureLoad } from './load.js';

export interface DpopCost {
  readonly plain: LoadResult;
  readonly dpop: LoadResult;
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
export async function measureWithAndWithoutDpop(target: LoadTarget, htu: string, settings: LoadSettings): Promise<DpopCost> {
  const plain = await measureLoad({ ...target, headersPerRequest: () => ({}) }, settings);
  const needed = Math.ceil(plain.requestsPerSecond * (settings.warmupSeconds + settings.durationSeconds) * 1.5) + 1000;
  const proofs = pregeneratedProofs(needed, htu);
  let next = 0;
  const dpopTarget = { ...target, headersPerRequest: () => ({ dpop: proofs[next++ % proofs.length] as string }) };
  await expectDpopToken(dpopTarget);
  return { plain, dpop: await measureLoad(dpopTarget, settings) };
}

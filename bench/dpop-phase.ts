import type { Teardown } from '../harness/process.js';
import { type DpopCost, measureWithAndWithoutDpop } from './dpop-cost.js';
import type { Fixtures } from './fixtures.js';
import { SCOPE } from './fixtures.js';
import { FORM_HEADERS } from './grant-loads.js';
import type { LoadSettings } from './load.js';
import { startOurs } from './servers.js';

/**
 * (e) The cost of DPoP (RFC 9449): one server process (in-memory store), client_credentials
 * plain, then the same client with a fresh DPoP proof in each request (one more signature
 * verification and one replay-cache write).
 */
export async function measureDpopPhase(settings: LoadSettings & { readonly rounds: number }, fixtures: Fixtures): Promise<DpopCost> {
  const cleanups: (() => unknown)[] = [];
  const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };
  try {
    const server = await startOurs(cleanup, fixtures);
    const target = {
      url: `${server.baseUrl}/oauth2/token`,
      headers: { ...FORM_HEADERS, authorization: fixtures.basicAuth },
      body: `grant_type=client_credentials&scope=${SCOPE}`,
    };
    // htu is the token endpoint under the issuer (http://localhost:<PORT> by default), whatever address we connect to.
    return await measureWithAndWithoutDpop(
      server.child.pid,
      target,
      `http://localhost:${new URL(server.baseUrl).port}/oauth2/token`,
      settings,
    );
  } finally {
    for (const stop of cleanups) await stop();
  }
}

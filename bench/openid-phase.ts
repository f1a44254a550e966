import type { Teardown } from '../harness/process.js';
import { startPrivateRedis } from '../harness/redis.js';
import { CLIENT_ID, CODE_VERIFIER, ES256_CLIENT_ID, type Fixtures, REDIRECT_URI, SCOPE } from './fixtures.js';
import { codeRedemptionLoad } from './grant-loads.js';
import { measureGrantLoad } from './load.js';
import { cpuMeter, meteredSeconds } from './cpu-split.js';
import type { MeteredLoad } from './metrics-cost.js';
import { mintOurCodes } from './minting.js';
import { startOurs } from './servers.js';

/**
 * (f) The cost of OpenID Connect at the token endpoint: the same code redemption, with and
 * without `openid` in the grant, one server process on a private Redis. With `openid` the
 * answer carries an ID token: one more signature, RS256 by default (a client may ask for
 * ES256), and a few more bytes. Rounds alternate the three so drift falls on each alike.
 */

/** Each with the server's CPU time (every thread) during the redemptions. */
export interface OpenidCost {
  readonly plain: readonly MeteredLoad[];
  readonly rs256: readonly MeteredLoad[];
  readonly es256: readonly MeteredLoad[];
}

export async function measureOpenidPhase(
  settings: { connections: number; codes: number; rounds: number },
  fixtures: Fixtures,
): Promise<OpenidCost> {
  const cleanups: (() => unknown)[] = [];
  const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };
  try {
    const redis = await startPrivateRedis(cleanup);
    const server = await startOurs(cleanup, fixtures, { redisUrl: redis.url });
    const client = (clientId: string) => ({
      tokenUrl: `${server.baseUrl}/oauth2/token`,
      authorization: `Basic ${Buffer.from(`${clientId}:${fixtures.clientSecret}`).toString('base64')}`,
      redirectUri: REDIRECT_URI,
      codeVerifier: CODE_VERIFIER,
    });
    const variants = [
      { name: 'plain' as const, clientId: CLIENT_ID, scope: [SCOPE] },
      { name: 'rs256' as const, clientId: CLIENT_ID, scope: ['openid', SCOPE] },
      { name: 'es256' as const, clientId: ES256_CLIENT_ID, scope: ['openid', SCOPE] },
    ];
    const results: Record<'plain' | 'rs256' | 'es256', MeteredLoad[]> = { plain: [], rs256: [], es256: [] };
    // A warm-up of each, not recorded.
    for (const v of variants) {
      const codes = await mintOurCodes(redis.url, 300, { clientId: v.clientId, scope: v.scope });
      await measureGrantLoad(codeRedemptionLoad(client(v.clientId), codes), { connections: settings.connections, amount: codes.length });
    }
    for (let round = 0; round < Math.max(2, settings.rounds); round += 1) {
      for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
        const codes = await mintOurCodes(redis.url, settings.codes, { clientId: v.clientId, scope: v.scope });
        const meter = cpuMeter(server.child.pid);
        meter.start();
        const result = await measureGrantLoad(codeRedemptionLoad(client(v.clientId), codes), {
          connections: settings.connections,
          amount: codes.length,
        });
        results[v.name].push({ ...result, ...meteredSeconds(meter.stop(result.completed)) });
      }
    }
    return results;
  } finally {
    for (const stop of cleanups.reverse()) await stop();
  }
}

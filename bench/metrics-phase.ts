import { freePort } from '../harness/ports.js';
import type { Teardown } from '../harness/process.js';
import type { Fixtures } from './fixtures.js';
import { SCOPE } from './fixtures.js';
import { FORM_HEADERS } from './grant-loads.js';
import type { LoadSettings } from './load.js';
import { expectCounted, measureMeteredLoad, type MeteredLoad } from './metrics-cost.js';
import { startOurs } from './servers.js';

/**
 * (d) The cost of metrics: our client_credentials endpoint (one process, in-memory store)
 * with METRICS_PORT unset or set, each run on a fresh server; with metrics on, the scrape
 * must have counted every token the load received.
 */
export async function measureOursMetered(settings: LoadSettings, fixtures: Fixtures, metrics: boolean): Promise<MeteredLoad> {
  const cleanups: (() => unknown)[] = [];
  const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };
  try {
    const metricsPort = metrics ? String(await freePort()) : undefined;
    const server = await startOurs(cleanup, fixtures, metricsPort ? { metricsPort } : {});
    const target = {
      url: `${server.baseUrl}/oauth2/token`,
      headers: { ...FORM_HEADERS, authorization: fixtures.basicAuth },
      body: `grant_type=client_credentials&scope=${SCOPE}`,
    };
    const result = await measureMeteredLoad(server.child.pid, target, settings);
    if (metricsPort) await expectCounted(metricsPort, result.completed);
    return result;
  } finally {
    for (const stop of cleanups) await stop();
  }
}

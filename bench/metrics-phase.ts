import { freePort } from '../harness/ports.js';
import type { Teardown } from '../harness/process.js';
import type { Fixtures } from './fixtures.js';
import { SCOPE } from './fixtures.js';
import { FORM_HEADERS } from './grant-loads.js';
import type { LoadSettings } from './load.js';
import { expectCounted, measureMeteredLoad, type MeteredLoad } from './metrics-cost.js';
import { type OurServerOptions, startOurs } from './servers.js';

/**
 * Our client_credentials endpoint (one process, in-memory store) on a fresh server started
 * with `options`, with the server's CPU time; `check` runs while the server is still up.
 * Phases (d) and (h) alternate two such servers.
 */
export async function measureOursOnce(
  settings: LoadSettings,
  fixtures: Fixtures,
  options: OurServerOptions,
  check?: (result: MeteredLoad) => Promise<void>,
): Promise<MeteredLoad> {
  const cleanups: (() => unknown)[] = [];
  const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };
  try {
    const server = await startOurs(cleanup, fixtures, options);
    const target = {
      url: `${server.baseUrl}/oauth2/token`,
      headers: { ...FORM_HEADERS, authorization: fixtures.basicAuth },
      body: `grant_type=client_credentials&scope=${SCOPE}`,
    };
    const result = await measureMeteredLoad(server.child.pid, target, settings);
    await check?.(result);
    return result;
  } finally {
    for (const stop of cleanups) await stop();
  }
}

/**
 * (d) The cost of metrics: METRICS_PORT unset or set; with metrics on, the scrape must have
 * counted every token the load received.
 */
export async function measureOursMetered(settings: LoadSettings, fixtures: Fixtures, metrics: boolean): Promise<MeteredLoad> {
  if (!metrics) return measureOursOnce(settings, fixtures, {});
  const metricsPort = String(await freePort());
  return measureOursOnce(settings, fixtures, { metricsPort }, (result) => expectCounted(metricsPort, result.completed));
}

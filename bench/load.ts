import autocannon from 'autocannon';

/** HTTP load from this process with autocannon: a warm-up run, then the measured run. */

export interface LoadTarget {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface LoadSettings {
  readonly connections: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
}

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly completed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** Connection errors, timeouts included. */
  readonly errors: number;
  /** Responses counted per HTTP status code. */
  readonly statusCodes: Readonly<Record<string, number>>;
}

function post(target: LoadTarget, connections: number, durationSeconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    duration: durationSeconds,
  });
}

function summarize(result: autocannon.Result): LoadResult {
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
  return {
    requestsPerSecond: result.requests.total / result.duration,
    completed: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
  };
}

/** Warms up, then measures; `afterWarmUp` runs between the two (to read counters from there). */
export async function measureLoad(target: LoadTarget, settings: LoadSettings, afterWarmUp?: () => void): Promise<LoadResult> {
  await post(target, settings.connections, settings.warmupSeconds);
  afterWarmUp?.();
  return summarize(await post(target, settings.connections, settings.durationSeconds));
}

import autocannon from 'autocannon';

/** HTTP load from this process with autocannon: a warm-up run, then the measured run. */

export interface LoadTarget {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Headers that change with every request (a DPoP proof each), added to `headers`. */
  readonly headersPerRequest?: () => Record<string, string>;
  /** A body for each request (a fresh client assertion each), instead of `body`. */
  readonly bodyPerRequest?: () => string;
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
    ...(target.headersPerRequest || target.bodyPerRequest
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                headers: { ...target.headers, ...target.headersPerRequest?.() },
                body: target.bodyPerRequest?.() ?? target.body,
              }),
            },
          ],
        }
      : {}),
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

/** One request of a grant's load: its form body, made when the request is sent. */
export interface GrantLoad {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The next body; undefined when there is nothing left to send (only with an `amount`). */
  nextBody(): string | undefined;
  /** Sees every response before the next request is made (a refresh takes its successor from it). */
  onResponse?(status: number, body: string): void;
}

/**
 * Load whose bodies change per request (codes, refresh tokens): `amount` requests, or
 * `durationSeconds` when no amount is given. The rate is the responses over the time from
 * the first request sent to the last response received: autocannon reports the end of a
 * run only at its next one-second sample tick, so timing the whole call would add up to a
 * second of silence, a larger share of a faster server's shorter run.
 */
export async function measureGrantLoad(
  load: GrantLoad,
  options: { readonly connections: number; readonly amount?: number; readonly durationSeconds?: number },
): Promise<LoadResult> {
  let firstSentAt: number | undefined;
  let lastResponseAt = 0;
  let responses = 0;
  const result = await autocannon({
    url: load.url,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.durationSeconds ?? 1 } : { amount: options.amount }),
    requests: [
      {
        method: 'POST',
        headers: load.headers,
        setupRequest: (request) => {
          const body = load.nextBody();
          firstSentAt ??= performance.now();
          // A falsy request ends this connection's pipeline: nothing is left to send.
          return (body === undefined ? undefined : { ...request, body }) as unknown as autocannon.Request;
        },
        onResponse: (status: number, body: string) => {
          responses += 1;
          lastResponseAt = performance.now();
          load.onResponse?.(status, body);
        },
      },
    ],
  });
  const seconds = firstSentAt === undefined ? 0 : (lastResponseAt - firstSentAt) / 1000;
  return { ...summarize(result), requestsPerSecond: seconds > 0 ? responses / seconds : 0 };
}

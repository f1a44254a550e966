import type { Clock } from '../clock.js';
import type { SecurityEvent, SecurityEvents } from '../events/types.js';

/**
 * The token endpoint's last hour, for the console's charts: tokens issued by grant type and
 * refusals by error code, counted per minute in 60 buckets kept in memory. It is fed by the
 * same security events the metrics count, whether or not METRICS_PORT is set, and holds at
 * most 60 buckets of a few counters (grant types and error codes are bounded sets). Each
 * instance counts what it served.
 */

export const WINDOW_MINUTES = 60;

/** One series of the window: a label and a count per minute, oldest first. */
export interface ActivitySeries {
  readonly label: string;
  readonly counts: readonly number[];
  readonly total: number;
}

/** The last hour: `start` is the first minute's start (seconds since the epoch); series sorted by total, then label. */
export interface ActivityWindow {
  readonly start: number;
  readonly issued: readonly ActivitySeries[];
  readonly refused: readonly ActivitySeries[];
}

interface Bucket {
  readonly minute: number;
  readonly issued: Map<string, number>;
  readonly refused: Map<string, number>;
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

export class TokenActivity implements SecurityEvents {
  private readonly buckets: (Bucket | undefined)[] = new Array<Bucket | undefined>(WINDOW_MINUTES).fill(undefined);

  constructor(private readonly clock: Clock) {}

  emit(event: SecurityEvent): void {
    if (event.event === 'token.issued') this.count('issued', event.grant);
    else if (event.event === 'token.failed') this.count('refused', event.error);
  }

  lastHour(): ActivityWindow {
    const last = minuteOf(this.clock());
    const first = last - WINDOW_MINUTES + 1;
    const minutes = Array.from({ length: WINDOW_MINUTES }, (_, i) => this.live(first + i));
    const series = (kind: 'issued' | 'refused'): ActivitySeries[] => {
      const labels = new Set(minutes.flatMap((bucket) => (bucket ? [...bucket[kind].keys()] : [])));
      return [...labels]
        .map((label) => {
          const counts = minutes.map((bucket) => bucket?.[kind].get(label) ?? 0);
          return { label, counts, total: counts.reduce((a, b) => a + b, 0) };
        })
        .sort((a, b) => b.total - a.total || (a.label < b.label ? -1 : 1));
    };
    return { start: first * 60, issued: series('issued'), refused: series('refused') };
  }

  private count(kind: 'issued' | 'refused', label: string): void {
    const minute = minuteOf(this.clock());
    const slot = minute % WINDOW_MINUTES;
    let bucket = this.buckets[slot];
    if (bucket?.minute !== minute) {
      bucket = { minute, issued: new Map(), refused: new Map() };
      this.buckets[slot] = bucket;
    }
    bucket[kind].set(label, (bucket[kind].get(label) ?? 0) + 1);
  }

  /** The bucket of `minute`, unless its slot holds an older minute (an hour or more ago). */
  private live(minute: number): Bucket | undefined {
    const bucket = this.buckets[minute % WINDOW_MINUTES];
    return bucket?.minute === minute ? bucket : undefined;
  }
}

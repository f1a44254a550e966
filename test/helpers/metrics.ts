import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import type { ServerMetrics } from '../../src/metrics/server-metrics.js';
import { buildMetricsServer } from '../../src/routes/metrics-server.js';

export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name as string] = (value as string).replace(/\\"/g, '"').replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The metrics listener of `metrics` (never listening: inject), closed when the test ends. */
export async function metricsListener(t: Test, metrics: ServerMetrics | undefined): Promise<FastifyInstance> {
  if (!metrics) throw new Error('the test server was built without metrics');
  const app = await buildMetricsServer(metrics);
  t.teardown(() => app.close());
  return app;
}

/** Scrapes GET /metrics and answers questions about it. */
export async function scrape(
  app: FastifyInstance,
): Promise<{ text: string; samples: Sample[]; value(name: string, labels?: Record<string, string>): number | undefined }> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}`);
  const samples = parseExposition(res.body);
  return {
    text: res.body,
    samples,
    /** The value of the sample with exactly these labels; undefined when there is none. */
    value(name, labels = {}) {
      const wanted = JSON.stringify(Object.entries(labels).sort());
      return samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted)?.value;
    },
  };
}

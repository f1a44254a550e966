import { readFileSync } from 'node:fs';

/**
 * Reads a V8 CPU profile (`node --cpu-prof`) for `npm run bench:profile -- <grant> --cpu-prof`:
 * the self time of each JavaScript function, and of each package or source file, within a
 * window of the monotonic clock (the measured requests; the warm-up left out). What callgrind
 * cannot say: its JIT-compiled frames have no names.
 */

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface SelfTimes {
  /** Microseconds sampled in the window, idle left out. */
  readonly busy: number;
  readonly byFunction: ReadonlyMap<string, number>;
  readonly byModule: ReadonlyMap<string, number>;
}

/** `node_modules/fastify/lib/route.js` → `fastify`; `…/dist/src/grants/x.js` → `src/grants/x.js`; `node:events` as it is. */
function moduleOf(url: string, functionName: string): string {
  if (url === '') return `(${functionName.replace(/[()]/g, '')})`;
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packaged) return packaged[1] as string;
  const ours = /\/dist\/(.+)$/.exec(url);
  return ours ? (ours[1] as string) : url;
}

/** Self times of the samples taken between `from` and `to` (microseconds of the monotonic clock). */
export function selfTimes(file: string, from: number, to: number): SelfTimes {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    const frame = nodes.get(id)?.callFrame;
    if (!frame || at < from || at > to || frame.functionName === '(idle)') return;
    busy += delta;
    const module = moduleOf(frame.url, frame.functionName);
    const name = `${frame.functionName || '(anonymous)'} ${module}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byModule.set(module, (byModule.get(module) ?? 0) + delta);
  });
  return { busy, byFunction, byModule };
}

/** The `count` largest entries as lines: microseconds per request, share of the busy time, name. */
export function topLines(times: ReadonlyMap<string, number>, busy: number, requests: number, count: number): string[] {
  return [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([name, micros]) => `${(micros / requests).toFixed(2).padStart(8)} µs ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}`,
    );
}

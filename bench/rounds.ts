import { redeem } from './family-memory.js';
import { SCOPE } from './fixtures.js';
import { type BenchClient, clientCredentialsLoad, codeRedemptionLoad, FORM_HEADERS, refreshRotationLoad } from './grant-loads.js';
import { type LoadResult, type LoadTarget, measureGrantLoad, measureLoad } from './load.js';
import type { BenchSettings } from './settings.js';
import { type CpuSplit, cpuMeter } from './cpu-split.js';

/**
 * One round against the peer (bench.ts runs `--rounds` of them): client_credentials at the
 * bench's connections for ours, the peer and the measured bound (first in one round, last in
 * the next), and at 256 connections for ours and the peer; ours with WORKERS=2; code
 * redemption and refresh rotation for ours and the peer. Ours and the peer swap places each
 * round. Each figure's result and where its CPU went are recorded by figure.
 */

const MANY_CONNECTIONS = 256;

export interface Contender {
  readonly name: 'ours' | 'peer';
  readonly client: BenchClient;
  /** The server's process, whose CPU time the rounds read. */
  readonly pid: number | undefined;
  mint(count: number): Promise<string[]>;
}

/** Refresh tokens to start chains from: two per connection, from redeemed codes (not measured). */
async function refreshSeeds(contender: Contender, count: number): Promise<string[]> {
  const codes = await contender.mint(count);
  return Promise.all(codes.map((code) => redeem(contender.client, code)));
}

type Samples = Record<string, LoadResult[]>;
/** Where the CPU went in each sample (server, Redis, load generator), by figure. */
type CpuSamples = Record<string, (CpuSplit | undefined)[]>;

export interface RoundRecords {
  readonly samples: Samples;
  readonly cpu: CpuSamples;
  readonly redisPid: number | undefined;
}

/** Measures one figure with `measure`, which starts the CPU window (after its warm-up) with `started`. */
async function recorded(
  records: RoundRecords,
  figure: string,
  serverPid: number | undefined,
  measure: (started: () => void) => Promise<LoadResult>,
): Promise<void> {
  const meter = cpuMeter(serverPid, records.redisPid);
  const result = await measure(() => meter.start());
  (records.samples[figure] ??= []).push(result);
  (records.cpu[figure] ??= []).push(meter.stop(result.completed));
}

export async function runRound(
  settings: BenchSettings,
  round: number,
  contenders: readonly Contender[],
  twoWorkers: BenchClient,
  bound: { readonly target: LoadTarget; readonly pid: number | undefined },
  records: RoundRecords,
) {
  const order = round % 2 === 0 ? contenders : [...contenders].reverse();
  const load = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds };
  // The bound runs first in one round and last in the next, as ours and the peer swap.
  const ccOrder = round % 2 === 0 ? [...order, undefined] : [undefined, ...order];
  for (const c of ccOrder) {
    if (c === undefined) {
      process.stdout.write(`  round ${round + 1}: bound client_credentials...\n`);
      await recorded(records, 'bound cc', bound.pid, (started) => measureLoad(bound.target, load, started));
      continue;
    }
    process.stdout.write(`  round ${round + 1}: ${c.name} client_credentials...\n`);
    const cc = clientCredentialsLoad(c.client, SCOPE);
    const target = { url: cc.url, headers: cc.headers, body: `grant_type=client_credentials&scope=${SCOPE}` };
    await recorded(records, `${c.name} cc`, c.pid, (started) => measureLoad(target, load, started));
    if (!settings.quick) {
      const many = { ...load, connections: MANY_CONNECTIONS };
      await recorded(records, `${c.name} cc256`, c.pid, (started) => measureLoad(target, many, started));
    }
  }
  process.stdout.write(`  round ${round + 1}: ours WORKERS=2 client_credentials...\n`);
  const twoTarget = {
    url: twoWorkers.tokenUrl,
    headers: { ...FORM_HEADERS, authorization: twoWorkers.authorization },
    body: `grant_type=client_credentials&scope=${SCOPE}`,
  };
  (records.samples['ours2 cc'] ??= []).push(await measureLoad(twoTarget, load));
  for (const c of order) {
    process.stdout.write(`  round ${round + 1}: ${c.name} code redemption...\n`);
    if (round === 0)
      await measureGrantLoad(codeRedemptionLoad(c.client, await c.mint(500)), { connections: settings.connections, amount: 500 });
    const codes = await c.mint(settings.codes);
    await recorded(records, `${c.name} code`, c.pid, (started) => {
      started();
      return measureGrantLoad(codeRedemptionLoad(c.client, codes), { connections: settings.connections, amount: codes.length });
    });
  }
  for (const c of order) {
    process.stdout.write(`  round ${round + 1}: ${c.name} refresh rotation...\n`);
    const seeds = await refreshSeeds(c, settings.connections * 2);
    if (round === 0)
      await measureGrantLoad(refreshRotationLoad(c.client, seeds), {
        connections: settings.connections,
        durationSeconds: settings.warmupSeconds,
      });
    const fresh = await refreshSeeds(c, settings.connections * 2);
    await recorded(records, `${c.name} refresh`, c.pid, (started) => {
      started();
      return measureGrantLoad(refreshRotationLoad(c.client, fresh), {
        connections: settings.connections,
        durationSeconds: settings.durationSeconds,
      });
    });
  }
}

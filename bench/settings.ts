import { parseArgs } from 'node:util';

/** The command line of `npm run bench`: rounds, duration, connections, and what --quick shortens. */

const USAGE = 'usage: npm run bench -- [--quick] [--connections <n>] [--duration <seconds>] [--rounds <n>]';
const WARMUP_SECONDS = 1;
const MAX_SIGN_SECONDS = 5;

export interface BenchSettings {
  readonly quick: boolean;
  readonly connections: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly rounds: number;
  /** Codes redeemed per server and round. */
  readonly codes: number;
  readonly families: number;
  readonly rotations: number;
  readonly signSeconds: number;
}

function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`--${flag} must be a positive whole number\n${USAGE}`);
  return Number(value);
}

export function parseSettings(argv: string[]): BenchSettings {
  const { values } = parseArgs({
    args: argv,
    options: { connections: { type: 'string' }, duration: { type: 'string' }, rounds: { type: 'string' }, quick: { type: 'boolean' } },
    strict: true,
  });
  const quick = values.quick === true;
  const durationSeconds = positiveInteger('duration', values.duration, quick ? 2 : 10);
  return {
    quick,
    connections: positiveInteger('connections', values.connections, 32),
    durationSeconds,
    warmupSeconds: WARMUP_SECONDS,
    rounds: positiveInteger('rounds', values.rounds, quick ? 1 : 5),
    codes: quick ? 2000 : 20_000,
    families: quick ? 20 : 100,
    rotations: quick ? 20 : 100,
    signSeconds: Math.min(durationSeconds, MAX_SIGN_SECONDS),
  };
}

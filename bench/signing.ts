import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { SigningThread } from '../src/tokens/jws.js';
import { freePort } from '../harness/ports.js';
import { type ServerProcess, startServerProcess, type Teardown } from '../harness/process.js';
import { startPrivateRedis } from '../harness/redis.js';
import { createFixtures, SCOPE } from './fixtures.js';
import { FORM_HEADERS } from './grant-loads.js';
import { measuringHostLoad } from './host.js';
import { type LoadResult, measureLoad } from './load.js';
import { startOurs } from './servers.js';

/**
 * Where to sign (issue 15, goal 3), at 1, 32 and 256 connections, in rounds that alternate
 * the order of the contenders (medians reported):
 * - a bare Fastify route signing one ES256 token per request on the main thread, on libuv's
 *   thread pool through node:crypto's callback form, or through WebCrypto (bench/signing-server.ts);
 * - our server on client_credentials with ACCESS_TOKEN_SIGNING=main-thread and thread-pool,
 *   with WORKERS=1 and WORKERS=2 (Redis, as WORKERS=2 requires; client_credentials does not use it).
 * Only 127.0.0.1, bounded in time.
 * Usage: npm run bench:signing -- [--duration 5] [--rounds 2]
 */

const BARE_MODES = ['main', 'threadpool', 'webcrypto'] as const;
const OUR_MODES: readonly SigningThread[] = ['main-thread', 'thread-pool'];
const CONNECTIONS = [1, 32, 256] as const;
const SERVER = fileURLToPath(new URL('./signing-server.js', import.meta.url));
const BODY = `grant_type=client_credentials&scope=${SCOPE}`;

const cleanups: (() => unknown)[] = [];
const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };

interface Contender {
  readonly name: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function wholeNumber(flag: string, value: string | undefined, fallback: number): number {
  const n = Number(value ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a positive whole number`);
  return n;
}

async function startContenders(): Promise<Contender[]> {
  const bare = await Promise.all(
    BARE_MODES.map(async (mode) => {
      const server = await startServerProcess(cleanup, { PORT: String(await freePort()), SIGN_MODE: mode }, { script: SERVER });
      return { name: `bare ${mode}`, url: `${server.baseUrl}/token`, headers: FORM_HEADERS };
    }),
  );
  const fixtures = await createFixtures();
  const redis = await startPrivateRedis(cleanup);
  const ours: Contender[] = [];
  for (const workers of [1, 2]) {
    for (const signing of OUR_MODES) {
      const server: ServerProcess = await startOurs(cleanup, fixtures, { redisUrl: redis.url, workers, signing });
      ours.push({
        name: `ours ${signing} WORKERS=${workers}`,
        url: `${server.baseUrl}/oauth2/token`,
        headers: { ...FORM_HEADERS, authorization: fixtures.basicAuth },
      });
    }
  }
  return [...bare, ...ours];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { duration: { type: 'string' }, rounds: { type: 'string' } },
    strict: true,
  });
  const durationSeconds = wholeNumber('duration', values.duration, 5);
  const rounds = wholeNumber('rounds', values.rounds, 2);
  const contenders = await startContenders();
  const results = new Map<string, LoadResult[]>();
  const host = await measuringHostLoad(async () => {
    for (let round = 0; round < rounds; round += 1) {
      for (const [level, connections] of CONNECTIONS.entries()) {
        // Each level and round starts with another contender, odd rounds run backwards: a
        // drift in the host's load favours no one.
        const shift = (level + round) % contenders.length;
        const rotated = [...contenders.slice(shift), ...contenders.slice(0, shift)];
        for (const contender of round % 2 === 0 ? rotated : rotated.reverse()) {
          process.stdout.write(`round ${round + 1}: ${contender.name}, ${connections} connections...\n`);
          const result = await measureLoad(
            { url: contender.url, headers: contender.headers, body: BODY },
            { connections, durationSeconds, warmupSeconds: 1 },
          );
          if (result.errors > 0 || result.non2xx > 0)
            throw new Error(`${contender.name} at ${connections} connections: ${result.errors} errors, ${result.non2xx} non-2xx`);
          const key = `${contender.name} ${connections}`;
          results.set(key, [...(results.get(key) ?? []), result]);
        }
      }
    }
  });
  const lines = [
    '',
    `medians of ${rounds} round(s), ${durationSeconds} s each, order alternated`,
    '| contender | ' + CONNECTIONS.map((c) => `${c} connection${c === 1 ? '' : 's'}`).join(' | ') + ' |',
    '|---|' + CONNECTIONS.map(() => '---|').join(''),
  ];
  for (const contender of contenders) {
    const cells = CONNECTIONS.map((connections) => {
      const samples = results.get(`${contender.name} ${connections}`) ?? [];
      const rate = Math.round(median(samples.map((r) => r.requestsPerSecond))).toLocaleString('en-US');
      return `${rate} req/s, p50 ${median(samples.map((r) => r.p50Ms))} / p99 ${median(samples.map((r) => r.p99Ms))} ms`;
    });
    lines.push(`| ${contender.name} | ${cells.join(' | ')} |`);
  }
  if (host.host) lines.push(`host: CPU steal ${host.host.stealPercent.toFixed(0)}%, other processes ${host.host.otherPercent.toFixed(0)}%`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main()
  .catch((err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const stop of cleanups.reverse()) await stop();
  });

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../harness/ports.js';
import { startPrivateRedis } from '../harness/redis.js';
import type { Teardown } from '../harness/process.js';
import { CLIENT_ASSERTION_TYPE } from '../src/oauth/client-assertion.js';
import { pregeneratedAssertions, pregeneratedWorkloadJwts } from './client-assertions.js';
import { JWT_BEARER_GRANT } from '../src/clients/token-exchange-policy.js';
import { selfTimes, topLines } from './cpu-profile.js';
import {
  ASSERTION_KID,
  CODE_VERIFIER,
  createFixtures,
  PKJWT_CLIENT_ID,
  REDIRECT_URI,
  RESOURCE,
  SCOPE,
  WORKLOAD_ISSUER,
  WORKLOAD_KID,
  WORKLOAD_SUBJECT,
} from './fixtures.js';
import { FORM_HEADERS } from './grant-loads.js';
import { mintOurCodes } from './minting.js';
import { pregeneratedProofs } from './dpop-proofs.js';

/**
 * Instruction counts of the server per token request (valgrind's callgrind), which hold
 * still whatever else the host runs, unlike rates: the server runs under callgrind, gets
 * `--warmup` requests, its counters are zeroed, it answers `--requests` more (8 in flight),
 * and each thread's count is printed per request: the event loop, libuv's thread pool
 * (where ES256 signatures are made) and V8's threads (GC, compiler). With `--functions`,
 * the event loop's 40 most expensive functions too (self cost). With `--cpu-prof`, no valgrind:
 * the server runs under `node --cpu-prof`, and the self time of its JavaScript functions and
 * of each package or source file during the measured requests is printed, in microseconds per
 * request (sampled, so it varies with the host's load; the instruction counts do not).
 * Usage: npm run bench:profile -- <client_credentials|refresh_token|metrics|private_key_jwt|dpop|workload> [--requests 1000] [--warmup 500] [--functions | --cpu-prof]
 */

const OUR_SERVER_SCRIPT = fileURLToPath(new URL('../src/main.js', import.meta.url));
const IN_FLIGHT = 8;
const GRANTS = ['client_credentials', 'refresh_token', 'metrics', 'private_key_jwt', 'dpop', 'workload'] as const;
type Profiled = (typeof GRANTS)[number];

const cleanups: (() => unknown)[] = [];
const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };
const print = (line: string) => void process.stdout.write(`${line}\n`);

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} takes a positive integer`);
  return value;
}

/** Our server under callgrind (one output file per thread) or `--cpu-prof`, writing to `outDir`; resolves when it answers. */
async function startProfiled(
  env: Record<string, string>,
  outDir: string,
  cpuProf: boolean,
): Promise<{ child: ChildProcess; baseUrl: string }> {
  const callgrind = [
    '--tool=callgrind',
    '--separate-threads=yes',
    '--instr-atstart=no', // nothing is counted until the warm-up is over
    '--smc-check=all-non-file', // V8 writes and rewrites machine code
    `--callgrind-out-file=${join(outDir, 'callgrind.out.%p')}`,
    process.execPath,
    OUR_SERVER_SCRIPT,
  ];
  const [command, ...args] = cpuProf
    ? [process.execPath, '--cpu-prof', `--cpu-prof-dir=${outDir}`, OUR_SERVER_SCRIPT]
    : ['valgrind', ...callgrind];
  const child = spawn(command as string, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...CONTROL_ENV, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk) => (output += chunk));
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + 300_000; // under callgrind a start takes a minute or more
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited under callgrind:\n${output}`);
    const ready = await fetch(`${baseUrl}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return { child, baseUrl };
    if (Date.now() > deadline) throw new Error(`the server did not start under callgrind:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * valgrind names the pipe callgrind_control talks through after USER and HOST: both sides
 * get the same (HOST is also where the server listens).
 */
const CONTROL_ENV = { USER: 'profile', LOGNAME: 'profile', HOST: '127.0.0.1' };

/** Counting on or off; callgrind_control prints an error but exits 0 when it cannot reach the server. */
function control(child: ChildProcess, instrumentation: 'on' | 'off'): void {
  const out = execFileSync('callgrind_control', [`--instr=${instrumentation}`, String(child.pid)], {
    encoding: 'utf8',
    env: { ...process.env, ...CONTROL_ENV },
  });
  if (!out.includes('OK')) throw new Error(`callgrind_control could not reach the server: ${out}`);
}

/** `count` requests, IN_FLIGHT at a time; `headers` and `body` make each one, `onAnswer` reads each 200 answer. */
async function send(
  url: string,
  headers: () => Record<string, string>,
  count: number,
  body: () => string,
  onAnswer?: (json: unknown) => void,
) {
  let left = count;
  const lane = async () => {
    while (left-- > 0) {
      const res = await fetch(url, { method: 'POST', headers: headers(), body: body() });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`the server answered ${res.status}: ${text}`);
      onAnswer?.(JSON.parse(text));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

/** The total instruction count (Ir) of one callgrind output file. */
function totalOf(file: string): number {
  const text = readFileSync(file, 'utf8');
  const match = /^totals: (\d+)/m.exec(text);
  return match ? Number(match[1]) : 0;
}

/** What kind of thread a per-thread output file is: the event loop, the thread pool, or V8's. */
function kindOf(file: string, index: number): 'event loop' | 'thread pool' | 'V8' {
  if (index === 0) return 'event loop';
  // libuv's workers wake the event loop with uv_async_send when a job is done; V8's do not.
  return /^c?fn=\(\d+\) uv_async_send$/m.test(readFileSync(file, 'utf8')) ? 'thread pool' : 'V8';
}

/** The `--cpu-prof` report: the event loop's self time per request, by function and by module. */
function printSelfTimes(profiled: Profiled, outDir: string, from: number, to: number, requests: number): void {
  const file = readdirSync(outDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`the server wrote no CPU profile in ${outDir}`);
  const { busy, byFunction, byModule } = selfTimes(join(outDir, file), from, to);
  print(`${profiled}: the event loop's JavaScript self time over ${requests} requests, node ${process.version}`);
  print(`  busy ${(busy / requests).toFixed(1)} µs per request (sampled)`);
  print('by module:');
  print(topLines(byModule, busy, requests, 20).join('\n'));
  print('by function:');
  print(topLines(byFunction, busy, requests, 40).join('\n'));
  print(`CPU profile: ${join(outDir, file)}`);
}

async function main(): Promise<void> {
  const profiled = process.argv[2] as Profiled;
  if (!GRANTS.includes(profiled)) throw new Error(`profile one of: ${GRANTS.join(', ')}`);
  const requests = option('requests', 1000);
  const warmup = option('warmup', 500);
  const fixtures = await createFixtures();
  const outDir = mkdtempSync(join(tmpdir(), 'oauth-profile-'));
  const env: Record<string, string> = {
    PORT: String(await freePort()),
    KEYS_DIR: fixtures.keysDir,
    CLIENTS_FILE: fixtures.clientsFile,
    RESOURCES_FILE: fixtures.resourcesFile,
    ACCESS_TOKEN_AUDIENCE: RESOURCE,
    LOG_LEVEL: 'warn',
  };
  if (profiled === 'metrics') env.METRICS_PORT = String(await freePort());
  if (profiled === 'workload') env.WORKLOAD_TRUSTS_FILE = fixtures.workloadTrustsFile;
  const redis = profiled === 'refresh_token' ? await startPrivateRedis(cleanup) : undefined;
  if (redis) env.REDIS_URL = redis.url;
  const cpuProf = process.argv.includes('--cpu-prof');
  const { child, baseUrl } = await startProfiled(env, outDir, cpuProf);
  const tokenUrl = `${baseUrl}/oauth2/token`;
  const basic = { ...FORM_HEADERS, authorization: fixtures.basicAuth };
  let body: () => string = () => `grant_type=client_credentials&scope=${SCOPE}`;
  let onAnswer: ((json: unknown) => void) | undefined;
  if (redis) {
    // Families to rotate: one per request in flight and more, each refreshed with its last answer.
    const codes = await mintOurCodes(redis.url, IN_FLIGHT * 4);
    const tail = `&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&code_verifier=${CODE_VERIFIER}`;
    const ready: string[] = [];
    let next = 0;
    await send(
      tokenUrl,
      () => basic,
      codes.length,
      () => `grant_type=authorization_code&code=${codes[next++]}${tail}`,
      (json) => {
        ready.push((json as { refresh_token: string }).refresh_token);
      },
    );
    body = () => `grant_type=refresh_token&refresh_token=${ready.shift()}`;
    onAnswer = (json) => ready.push((json as { refresh_token: string }).refresh_token);
  }
  let headers: () => Record<string, string> = () => basic;
  if (profiled === 'dpop') {
    // A fresh proof each, signed here before the requests (htu: the token endpoint under the issuer, http://localhost:<PORT>).
    const proofs = pregeneratedProofs(warmup + requests, `http://localhost:${env.PORT}/oauth2/token`);
    headers = () => ({ ...basic, dpop: proofs.pop() as string });
  }
  if (profiled === 'private_key_jwt') {
    // A fresh client assertion each, signed here before the requests (the audience: the issuer, http://localhost:<PORT>).
    const signer = { clientId: PKJWT_CLIENT_ID, issuer: `http://localhost:${env.PORT}`, key: fixtures.assertionKey, kid: ASSERTION_KID };
    const assertions = pregeneratedAssertions(warmup + requests, signer);
    const type = encodeURIComponent(CLIENT_ASSERTION_TYPE);
    body = () =>
      `grant_type=client_credentials&scope=${SCOPE}&client_id=${PKJWT_CLIENT_ID}&client_assertion_type=${type}&client_assertion=${assertions.pop()}`;
    headers = () => FORM_HEADERS;
  }
  if (profiled === 'workload') {
    // A workload's JWT each (no client), signed here before the requests (the audience: the issuer, http://localhost:<PORT>).
    const signer = { issuer: `http://localhost:${env.PORT}`, key: fixtures.workloadKey, kid: WORKLOAD_KID };
    const jwts = pregeneratedWorkloadJwts(warmup + requests, signer, WORKLOAD_ISSUER, WORKLOAD_SUBJECT);
    const grant = encodeURIComponent(JWT_BEARER_GRANT);
    body = () => `grant_type=${grant}&assertion=${jwts.pop()}&resource=${encodeURIComponent(RESOURCE)}&scope=${SCOPE}`;
    headers = () => FORM_HEADERS;
  }
  await send(tokenUrl, headers, warmup, body, onAnswer);
  const micros = () => Number(process.hrtime.bigint() / 1000n); // the clock of the profile's timestamps
  const from = micros();
  if (!cpuProf) control(child, 'on');
  await send(tokenUrl, headers, requests, body, onAnswer);
  if (!cpuProf) control(child, 'off');
  const to = micros();
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
  if (cpuProf) return printSelfTimes(profiled, outDir, from, to, requests);
  const files = readdirSync(outDir)
    .filter((name) => /^callgrind\.out\.\d+-\d+$/.test(name)) // one per thread, the event loop's first
    .sort()
    .map((name) => join(outDir, name));
  const perKind = new Map<string, number>();
  files.forEach((file, index) => {
    const kind = kindOf(file, index);
    perKind.set(kind, (perKind.get(kind) ?? 0) + totalOf(file));
  });
  print(`${profiled}: instructions per request over ${requests} requests (${warmup} of warm-up), node ${process.version}`);
  for (const [kind, total] of perKind) print(`  ${kind.padEnd(12)} ${Math.round(total / requests / 100) / 10}k`);
  if (process.argv.includes('--functions') && files[0]) {
    // Self cost: JIT-compiled JavaScript has no symbols here, so V8's builtins, the runtime and OpenSSL are named.
    const table = execFileSync('callgrind_annotate', ['--threshold=80', files[0]], { encoding: 'utf8' }).split('\n');
    const start = table.findIndex((line) => line.includes('file:function'));
    print(table.slice(start + 2, start + 42).join('\n'));
  }
  print(`callgrind output: ${outDir}`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const stop of cleanups.splice(0).reverse()) await stop();
  });

import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateClientSecret, hashClientSecret } from '../src/clients/secret.js';
import { rotateKeys } from '../src/keys/rotation.js';
import { freePort } from '../test/helpers/ports.js';
import { type ServerProcess, startServerProcess, type Teardown } from '../test/helpers/process.js';
import { type HostLoad, measuringHostLoad, type WithHostLoad } from './host.js';
import { type LoadResult, type LoadSettings, type LoadTarget, measureLoad } from './load.js';
import { cpuSecondsOf, describeCpu, expectCounted, type MeteredLoad, measureMetricsCost, type MetricsCost } from './metrics-cost.js';
import { measureSigningRate } from './sign.js';

/**
 * Token endpoint throughput against what it could be: (a) bare Fastify parsing the same
 * form, (b) the raw ES256 signing rate of one core (the server's own signing function),
 * (c) our server. A request costs at least one of each, so 1/(1/a + 1/b) is what one
 * core could serve if nothing else cost time. Then (d) the cost of metrics: (c) again
 * with METRICS_PORT set, interleaved with runs without, in the same run.
 * Usage: npm run bench -- [--connections 32] [--duration 10] [--quick]
 */

const USAGE = 'usage: npm run bench -- [--connections <n>] [--duration <seconds>] [--quick]';
const WARMUP_SECONDS = 1;
const MAX_SIGN_SECONDS = 5;
/** Above this share of CPU time taken by others (steal or other processes) the numbers are noisy. */
const NOISY_HOST_PERCENT = 5;
const LOG_LEVEL = 'warn';
const CLIENT_ID = 'bench-client';
const FORM_BODY = 'grant_type=client_credentials&scope=read';
const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' };
/** The route bench/bare-server.ts serves. */
const BARE_ROUTE = '/token';
const BARE_SERVER_SCRIPT = fileURLToPath(new URL('./bare-server.js', import.meta.url));
const OUR_SERVER_SCRIPT = fileURLToPath(new URL('../src/main.js', import.meta.url));

interface BenchSettings extends LoadSettings {
  readonly signSeconds: number;
}

function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`--${flag} must be a positive whole number\n${USAGE}`);
  return Number(value);
}

function parseSettings(argv: string[]): BenchSettings {
  const { values } = parseArgs({
    args: argv,
    options: { connections: { type: 'string' }, duration: { type: 'string' }, quick: { type: 'boolean' } },
    strict: true,
  });
  const durationSeconds = positiveInteger('duration', values.duration, values.quick ? 3 : 10);
  return {
    connections: positiveInteger('connections', values.connections, 32),
    durationSeconds,
    warmupSeconds: WARMUP_SECONDS,
    signSeconds: Math.min(durationSeconds, MAX_SIGN_SECONDS),
  };
}

/** A keys folder with one signing ES256 key and a clients file with one client_credentials client. */
interface Fixtures {
  readonly keysDir: string;
  readonly clientsFile: string;
  readonly basicAuth: string;
}

async function createFixtures(): Promise<Fixtures> {
  const dir = await mkdtemp(join(tmpdir(), 'oauth-bench-'));
  // The folder holds a private key: removed however the bench ends (Ctrl-C included).
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const keysDir = join(dir, 'keys');
  const clientsFile = join(dir, 'clients.json');
  const secret = generateClientSecret();
  await mkdir(keysDir, { mode: 0o700 });
  await rotateKeys(keysDir, { delay: 0, accessTokenTtl: 3600 });
  const client = {
    client_id: CLIENT_ID,
    client_secret_hash: hashClientSecret(secret),
    grant_types: ['client_credentials'],
    scope: 'read write',
    token_endpoint_auth_method: 'client_secret_basic',
  };
  await writeFile(clientsFile, JSON.stringify({ clients: [client] }), { mode: 0o600 });
  return { keysDir, clientsFile, basicAuth: `Basic ${Buffer.from(`${CLIENT_ID}:${secret}`).toString('base64')}` };
}

function postForm(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...FORM_HEADERS, ...headers }, body: FORM_BODY });
}

/** Runs `work` against a server started by `start`, which is stopped whatever happens. */
async function withServer<T>(
  start: (cleanup: Teardown) => Promise<ServerProcess>,
  work: (server: ServerProcess) => Promise<T>,
): Promise<T> {
  const cleanups: (() => unknown)[] = [];
  // Last resort: however the bench ends, no server outlives it.
  const killAll = () => cleanups.forEach((cleanup) => void cleanup());
  process.once('exit', killAll);
  try {
    return await work(await start({ teardown: (cleanup) => cleanups.push(cleanup) }));
  } finally {
    process.off('exit', killAll);
    for (const cleanup of cleanups) await cleanup();
  }
}

async function measureBare(settings: BenchSettings): Promise<LoadResult> {
  const port = String(await freePort());
  const start = (cleanup: Teardown) => startServerProcess(cleanup, { PORT: port }, { script: BARE_SERVER_SCRIPT });
  return withServer(start, (bare) =>
    measureLoad({ url: `${bare.baseUrl}${BARE_ROUTE}`, headers: FORM_HEADERS, body: FORM_BODY }, settings),
  );
}

/** One real token request before the load, so a misconfigured server fails loudly. */
async function expectToken(target: LoadTarget): Promise<void> {
  const response = await postForm(target.url, target.headers);
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"access_token"')) {
    throw new Error(`token request answered ${response.status}: ${text}`);
  }
}

async function measureOurs(settings: BenchSettings, fixtures: Fixtures, options: { metrics?: boolean } = {}): Promise<MeteredLoad> {
  const metricsPort = options.metrics ? String(await freePort()) : undefined;
  const env = {
    PORT: String(await freePort()),
    KEYS_DIR: fixtures.keysDir,
    CLIENTS_FILE: fixtures.clientsFile,
    LOG_LEVEL,
    ...(metricsPort ? { METRICS_PORT: metricsPort } : {}),
  };
  const start = (cleanup: Teardown) => startServerProcess(cleanup, env, { script: OUR_SERVER_SCRIPT });
  return withServer(start, async (ours) => {
    const target = {
      url: `${ours.baseUrl}/oauth2/token`,
      headers: { ...FORM_HEADERS, authorization: fixtures.basicAuth },
      body: FORM_BODY,
    };
    await expectToken(target);
    let cpuBefore: number | undefined;
    const result = await measureLoad(target, settings, () => (cpuBefore = cpuSecondsOf(ours.child.pid)));
    const cpuAfter = cpuSecondsOf(ours.child.pid);
    if (metricsPort) await expectCounted(metricsPort, result.completed);
    const serverCpuSeconds = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    return { ...result, serverCpuSeconds };
  });
}

const whole = (n: number) => Math.round(n).toString();
const ms = (n: number) => `${Number(n.toFixed(2))} ms`;
const hostNote = (host: HostLoad | undefined) =>
  host === undefined ? '' : ` [host: CPU steal ${host.stealPercent.toFixed(0)}%, other processes ${host.otherPercent.toFixed(0)}%]`;

function describeLoad(result: LoadResult): string {
  const codes = Object.entries(result.statusCodes)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ');
  return [
    `${whole(result.requestsPerSecond)} req/s (${result.completed} requests)`,
    `p50 ${ms(result.p50Ms)}  p99 ${ms(result.p99Ms)}`,
    `non-2xx ${result.non2xx}  errors ${result.errors}  [${codes}]`,
  ].join('\n      ');
}

interface Phases {
  readonly bare: WithHostLoad<LoadResult>;
  readonly signing: WithHostLoad<number>;
  readonly ours: WithHostLoad<LoadResult>;
  readonly metricsCost: WithHostLoad<MetricsCost>;
}

const boundOf = (bareRate: number, signRate: number) => 1 / (1 / bareRate + 1 / signRate);

function report(settings: BenchSettings, { bare, signing, ours, metricsCost }: Phases): void {
  const a = bare.value.requestsPerSecond;
  const b = signing.value;
  const rate = ours.value.requestsPerSecond;
  const bound = boundOf(a, b);
  const ratio = rate / bound;
  const metricsRatio = metricsCost.value.on / metricsCost.value.off;
  const othersShare = Math.max(...[bare, signing, ours, metricsCost].map(({ host }) => (host ? host.stealPercent + host.otherPercent : 0)));
  const lines = [
    '',
    `(a) bare Fastify POST ${BARE_ROUTE} (same form parsing, constant JSON, logger off)${hostNote(bare.host)}`,
    `      ${describeLoad(bare.value)}`,
    `(b) ES256 signing, one core, tight loop over ${settings.signSeconds} s (the server's signCompactJws)${hostNote(signing.host)}`,
    `      ${whole(b)} signs/s`,
    `(c) our server POST /oauth2/token (client_credentials, Basic auth, LOG_LEVEL=${LOG_LEVEL}, in-memory store)${hostNote(ours.host)}`,
    `      ${describeLoad(ours.value)}`,
    `(d) our server as (c), metrics off and METRICS_PORT set, alternating twice each${hostNote(metricsCost.host)}`,
    `      off ${whole(metricsCost.value.off)} req/s  on ${whole(metricsCost.value.on)} req/s  on/off = ${metricsRatio.toFixed(3)}`,
    `      ${describeCpu(metricsCost.value.cpuPerRequest)}`,
    '',
    `ours  = ${whole(rate)} req/s`,
    `bound = 1/(1/a + 1/b) = ${whole(bound)} req/s`,
    `ratio = ours/bound = ${ratio.toFixed(2)}`,
    ...(othersShare > NOISY_HOST_PERCENT
      ? [`note: others took up to ${othersShare.toFixed(0)}% of the host's CPU time during a phase; expect noisy numbers`]
      : []),
    '',
    `bench: ours=${whole(rate)} req/s bare=${whole(a)} req/s sign=${whole(b)} /s bound=${whole(bound)} ratio=${ratio.toFixed(2)} metrics_on/off=${metricsRatio.toFixed(3)}` +
      (metricsCost.value.cpuPerRequest
        ? ` metrics_cpu_on/off=${(metricsCost.value.cpuPerRequest.on / metricsCost.value.cpuPerRequest.off).toFixed(3)}`
        : ''),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function loadFailures(name: string, result: LoadResult): string[] {
  const failures: string[] = [];
  if (result.errors > 0) failures.push(`${name}: ${result.errors} connection errors`);
  if (result.non2xx > 0) failures.push(`${name}: ${result.non2xx} non-2xx responses`);
  return failures;
}

async function main(): Promise<void> {
  // Ctrl-C or a kill still runs the 'exit' cleanups (servers stopped, key folder removed).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  const settings = parseSettings(process.argv.slice(2));
  process.stdout.write(
    `bench: ${settings.connections} connections, ${settings.durationSeconds} s per phase after ${settings.warmupSeconds} s warm-up, ` +
      `node ${process.version}, ${availableParallelism()} CPUs\n`,
  );
  const fixtures = await createFixtures();
  process.stdout.write('(a) bare Fastify...\n');
  const bare = await measuringHostLoad(() => measureBare(settings));
  process.stdout.write('(b) ES256 signing...\n');
  const signing = await measuringHostLoad(async () => measureSigningRate(settings.warmupSeconds, settings.signSeconds));
  process.stdout.write(`(c) our server (LOG_LEVEL=${LOG_LEVEL})...\n`);
  const ours = await measuringHostLoad(() => measureOurs(settings, fixtures));
  process.stdout.write('(d) metrics off and on...\n');
  const metricsCost = await measuringHostLoad(() => measureMetricsCost((metrics) => measureOurs(settings, fixtures, { metrics })));
  report(settings, { bare, signing, ours, metricsCost });
  const failures = [
    ...loadFailures('bare server', bare.value),
    ...loadFailures('our server', ours.value),
    ...metricsCost.value.results.flatMap((r) => loadFailures('metrics phase', r)),
  ];
  if (failures.length > 0) throw new Error(`the bench failed:\n${failures.join('\n')}`);
}

main().catch((err: Error) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exitCode = 1;
});

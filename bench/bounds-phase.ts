import { createPublicKey } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { defaultThreadPoolSize } from '../src/config/signing.js';
import { CLIENT_ASSERTION_TYPE } from '../src/oauth/client-assertion.js';
import { freePort } from '../harness/ports.js';
import { type ServerProcess, startServerProcess, type Teardown } from '../harness/process.js';
import { pregeneratedAssertions } from './client-assertions.js';
import { ASSERTION_KID, type Fixtures, PKJWT_CLIENT_ID, SCOPE } from './fixtures.js';
import { FORM_HEADERS } from './grant-loads.js';
import type { WithHostLoad } from './host.js';
import { type CpuSplit, perRequest } from './cpu-split.js';
import type { LoadResult, LoadSettings, LoadTarget } from './load.js';
import { cpuMicrosPerRequest, measureMeteredLoad, type MeteredLoad, median, roundRatios } from './metrics-cost.js';

/**
 * (i) The bounds, measured rather than computed: bare Fastify with the token route's form
 * parsing that signs one ES256 token per request on libuv's thread pool, sized as our
 * server sizes it (bench/signing-server.ts), which is all our client_credentials request
 * needs beyond its own logic;
 * and the same server verifying one ES256 client assertion from the form on the pool
 * before it signs, and nothing else, which is all a private_key_jwt request needs beyond
 * client_credentials' work; and the same server signing a second token per request, all an
 * ES256 ID token needs beyond a code redemption's work. Alternated rounds, one process each,
 * as (g) measures ours: each ratio is the best a grant adding one verification, or one
 * signature, could reach over a request as cheap as the bound, from rates rather than from
 * CPU; their CPU per request is what that cryptography costs inside a server. The plain
 * bound also runs in the rounds against the peer, at the same connections: bound/peer is the
 * best client_credentials ratio any server on Fastify and OpenSSL's P-256 could reach in that
 * run.
 */

/** Built, under dist/ (startServerProcess resolves it there), whether this module runs from dist/ or from a test's copy. */
const SIGNING_SERVER = 'bench/signing-server.js';
const CC_BODY = `grant_type=client_credentials&scope=${SCOPE}`;

export interface BoundsCost {
  /** The bound: bare Fastify + one signature on the pool. */
  readonly plain: readonly MeteredLoad[];
  /** The bound + one P-256 verification of the form's client assertion, on the pool. */
  readonly verifying: readonly MeteredLoad[];
  /** The bound + a second signature (an ID token's), on the pool. */
  readonly twoSignatures: readonly MeteredLoad[];
}

/** A bound server: bare Fastify signing on the pool (one thread on two cores, as ours); `verifyWith`: a public key, SPKI PEM. */
export async function startBound(cleanup: Teardown, extra: { verifyWith?: string; twoSignatures?: boolean } = {}): Promise<ServerProcess> {
  const { verifyWith, twoSignatures } = extra;
  const env = {
    PORT: String(await freePort()),
    SIGN_MODE: 'threadpool',
    UV_THREADPOOL_SIZE: String(defaultThreadPoolSize(1, availableParallelism())),
    ...(verifyWith ? { VERIFY_PUBLIC_KEY: verifyWith } : {}),
    ...(twoSignatures ? { SIGNATURES: '2' } : {}),
  };
  return startServerProcess(cleanup, env, { script: SIGNING_SERVER });
}

/** The bound's client_credentials request, against a server from startBound. */
export function boundTarget(server: ServerProcess): LoadTarget {
  return { url: `${server.baseUrl}/token`, headers: FORM_HEADERS, body: CC_BODY };
}

export async function measureBoundsPhase(settings: LoadSettings & { readonly rounds: number }, fixtures: Fixtures): Promise<BoundsCost> {
  const cleanups: (() => unknown)[] = [];
  const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };
  try {
    const publicKey = createPublicKey(fixtures.assertionKey).export({ format: 'pem', type: 'spki' }).toString();
    const plainServer = await startBound(cleanup);
    const verifyingServer = await startBound(cleanup, { verifyWith: publicKey });
    const twoSignatureServer = await startBound(cleanup, { twoSignatures: true });
    const second = await (
      await fetch(boundTarget(twoSignatureServer).url, { method: 'POST', headers: FORM_HEADERS, body: CC_BODY })
    ).json();
    if (typeof (second as { id_token?: unknown }).id_token !== 'string')
      throw new Error('(i) the bound signing twice answered no id_token');
    // One assertion serves every request: the bound keeps no replay cache. Its form is (g)'s private_key_jwt form.
    const [assertion] = pregeneratedAssertions(1, {
      clientId: PKJWT_CLIENT_ID,
      issuer: 'http://localhost',
      key: fixtures.assertionKey,
      kid: ASSERTION_KID,
    }) as [string];
    const verifyingBody = `${CC_BODY}&client_id=${PKJWT_CLIENT_ID}&client_assertion_type=${encodeURIComponent(CLIENT_ASSERTION_TYPE)}&client_assertion=${assertion}`;
    const verifying = { url: `${verifyingServer.baseUrl}/token`, headers: FORM_HEADERS, body: verifyingBody };
    // Before any load: the verifying bound takes the assertion and refuses a forged one, so it does verify.
    const taken = await fetch(verifying.url, { method: 'POST', headers: FORM_HEADERS, body: verifyingBody });
    if (taken.status !== 200) throw new Error(`(i) the verifying bound answered ${taken.status}: ${await taken.text()}`);
    const forged = verifyingBody.slice(0, -4) + (verifyingBody.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const refused = await fetch(verifying.url, { method: 'POST', headers: FORM_HEADERS, body: forged });
    if (refused.status !== 400) throw new Error(`(i) the verifying bound answered ${refused.status} to a forged assertion`);
    const results = { plain: [] as MeteredLoad[], verifying: [] as MeteredLoad[], twoSignatures: [] as MeteredLoad[] };
    const variants = [
      ['plain', () => measureMeteredLoad(plainServer.child.pid, boundTarget(plainServer), settings)],
      ['verifying', () => measureMeteredLoad(verifyingServer.child.pid, verifying, settings)],
      ['twoSignatures', () => measureMeteredLoad(twoSignatureServer.child.pid, boundTarget(twoSignatureServer), settings)],
    ] as const;
    for (let round = 0; round < Math.max(2, settings.rounds); round += 1)
      for (const [name, measure] of round % 2 === 0 ? variants : [...variants].reverse()) results[name].push(await measure());
    return results;
  } finally {
    for (const stop of cleanups.reverse()) await stop();
  }
}

const whole = (n: number) => Math.round(n).toLocaleString('en-US');
const rateOf = (results: readonly LoadResult[]) => median(results.map((r) => r.requestsPerSecond));

/** (i)'s line: both rates, their ratio, and each side's CPU per request (server, load generator). */
export function boundsLine(cost: WithHostLoad<BoundsCost>, note: string): string {
  const { plain, verifying, twoSignatures } = cost.value;
  const [plainRate, verifyingRate, twoRate] = [rateOf(plain), rateOf(verifying), rateOf(twoSignatures)];
  const cpu = (results: readonly MeteredLoad[]) => {
    const [server, load] = [cpuMicrosPerRequest(results), cpuMicrosPerRequest(results, 'load')];
    return server === undefined || load === undefined ? 'unknown' : `server ${Math.round(server)} + load ${Math.round(load)} µs`;
  };
  return (
    `(i) the bounds, measured, medians of ${plain.length} alternated rounds [${note}]: bare Fastify + one ES256 signature on the pool ` +
    `${whole(plainRate)} req/s (${cpu(plain)}), + one P-256 verification of a client assertion, nothing else, ${whole(verifyingRate)} req/s ` +
    `(${cpu(verifying)}): verifying/plain = ${(verifyingRate / plainRate).toFixed(2)}; + a second signature ${whole(twoRate)} req/s ` +
    `(${cpu(twoSignatures)}): two/one = ${(twoRate / plainRate).toFixed(2)}`
  );
}

/** The plain bound against the peer and ours in the same rounds: what any Fastify + P-256 server could reach. */
export function boundRoundLines(
  samples: Readonly<Record<string, readonly LoadResult[]>>,
  cpu: Readonly<Record<string, readonly (CpuSplit | undefined)[]>>,
  connections: number,
): string[] {
  const [bound, peer, ours] = [samples['bound cc'], samples['peer cc'], samples['ours cc']];
  if (!bound?.length || !peer?.length || !ours?.length) return [];
  const perRound = roundRatios(bound, peer);
  const [boundCpu, peerCpu] = [perRequest(cpu['bound cc'] ?? []), perRequest(cpu['peer cc'] ?? [])];
  const cpuNote =
    boundCpu && peerCpu
      ? `; CPU per request: bound server ${Math.round(boundCpu.server)} + load ${Math.round(boundCpu.loadGenerator)} µs, ` +
        `server peer/bound ${(peerCpu.server / boundCpu.server).toFixed(2)}×`
      : '';
  return [
    `bound (bare Fastify + one ES256 signature on the pool), client_credentials, ${connections} connections, same rounds: ` +
      `${whole(rateOf(bound))} req/s; bound/peer = ${(rateOf(bound) / rateOf(peer)).toFixed(2)}× (rounds ${perRound.join(' ')}); ` +
      `ours/bound = ${(rateOf(ours) / rateOf(bound)).toFixed(2)}${cpuNote}`,
  ];
}

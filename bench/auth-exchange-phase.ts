import type { Teardown } from '../harness/process.js';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE } from '../src/grants/token-exchange.js';
import { CLIENT_ASSERTION_TYPE } from '../src/oauth/client-assertion.js';
import { JWT_BEARER_GRANT } from '../src/clients/token-exchange-policy.js';
import { pregeneratedAssertions, pregeneratedWorkloadJwts } from './client-assertions.js';
import {
  ASSERTION_KID,
  DOWNSTREAM_RESOURCE,
  EXCHANGE_CLIENT_ID,
  type Fixtures,
  PKJWT_CLIENT_ID,
  RESOURCE,
  SCOPE,
  WORKLOAD_ISSUER,
  WORKLOAD_KID,
  WORKLOAD_SUBJECT,
} from './fixtures.js';
import { FORM_HEADERS } from './grant-loads.js';
import { type LoadSettings, type LoadTarget, measureLoad } from './load.js';
import { measureMeteredLoad, type MeteredLoad } from './metrics-cost.js';
import { startOurs } from './servers.js';

/**
 * (g) Three more ways to get a token, against client_credentials with client_secret_basic, on
 * one server process (in-memory store), in rounds that alternate the order:
 * - client_credentials with private_key_jwt (RFC 7523 §2.2): a fresh ES256 client assertion
 *   in each request, one signature verification and one replay-cache write more;
 * - token exchange (RFC 8693): an access token of the bench client (aud RESOURCE, which the
 *   exchanging client's policy accepts) for one of DOWNSTREAM_RESOURCE, one signature
 *   verification and a denylist lookup more. Exchange does not consume the subject token, so
 *   a few tokens minted before the phase serve every request, in turn;
 * - a workload's JWT (workload identity federation, RFC 7523 §2.1, no client): a fresh ES256
 *   JWT with a jti in each request, verified with the trust's inline key, one signature
 *   verification and one replay-cache write more, no client authentication.
 * Every variant builds its requests through autocannon's setupRequest, so the load generator
 * does the same work for each.
 */

/** Each with the server's CPU time (every thread), to say what a variant costs beyond its rate. */
export interface AuthExchangeCost {
  readonly basic: readonly MeteredLoad[];
  readonly pkjwt: readonly MeteredLoad[];
  readonly exchange: readonly MeteredLoad[];
  readonly workload: readonly MeteredLoad[];
}

/** Subject tokens the exchanges take in turn. */
const SUBJECT_TOKENS = 64;
/** Assertions signed ahead of a run: this many times what client_secret_basic served at most, plus a margin. */
const ASSERTION_HEADROOM = 1.5;
const ASSERTION_MARGIN = 1000;

const CC_BODY = `grant_type=client_credentials&scope=${SCOPE}`;

/** One request; its status must be `status`. Returns the parsed answer (an error answer's text is thrown). */
async function expectAnswer(target: LoadTarget, body: string, status = 200): Promise<Record<string, unknown>> {
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body });
  const text = await response.text();
  if (response.status !== status) throw new Error(`(g) ${target.url} answered ${response.status}, not ${status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function accessTokenOf(target: LoadTarget, body: string): Promise<string> {
  const answer = await expectAnswer(target, body);
  if (typeof answer.access_token !== 'string') throw new Error(`(g) no access token from ${target.url}`);
  return answer.access_token;
}

function pkjwtBody(assertion: string): string {
  // client_id as well as the assertion, as openid-client and oauth4webapi send it.
  return `${CC_BODY}&client_id=${PKJWT_CLIENT_ID}&client_assertion_type=${encodeURIComponent(CLIENT_ASSERTION_TYPE)}&client_assertion=${assertion}`;
}

function workloadBody(jwt: string): string {
  return `grant_type=${encodeURIComponent(JWT_BEARER_GRANT)}&assertion=${jwt}&resource=${encodeURIComponent(RESOURCE)}&scope=${SCOPE}`;
}

function exchangeBody(subjectToken: string): string {
  return (
    `grant_type=${encodeURIComponent(TOKEN_EXCHANGE)}&subject_token=${subjectToken}` +
    `&subject_token_type=${encodeURIComponent(ACCESS_TOKEN_TYPE)}&resource=${encodeURIComponent(DOWNSTREAM_RESOURCE)}&scope=${SCOPE}`
  );
}

export async function measureAuthExchangePhase(settings: LoadSettings & { rounds: number }, fixtures: Fixtures): Promise<AuthExchangeCost> {
  const cleanups: (() => unknown)[] = [];
  const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };
  try {
    const server = await startOurs(cleanup, fixtures, { workloads: true });
    const url = `${server.baseUrl}/oauth2/token`;
    // The issuer is http://localhost:<PORT> by default, whatever address we connect to.
    const signer = {
      clientId: PKJWT_CLIENT_ID,
      issuer: `http://localhost:${new URL(url).port}`,
      key: fixtures.assertionKey,
      kid: ASSERTION_KID,
    };
    const basic: LoadTarget = {
      url,
      headers: { ...FORM_HEADERS, authorization: fixtures.basicAuth },
      body: CC_BODY,
      bodyPerRequest: () => CC_BODY,
    };
    const exchangerAuth = `Basic ${Buffer.from(`${EXCHANGE_CLIENT_ID}:${fixtures.clientSecret}`).toString('base64')}`;
    const exchangeHeaders = { ...FORM_HEADERS, authorization: exchangerAuth };

    // Before any load: each request answers 200, a subject token serves twice, an assertion once.
    const subjects = await Promise.all(Array.from({ length: SUBJECT_TOKENS }, () => accessTokenOf(basic, CC_BODY)));
    const exchangeBodies = subjects.map(exchangeBody);
    const exchangeProbe = { url, headers: exchangeHeaders, body: '' };
    for (let i = 0; i < 2; i += 1) {
      const answer = await expectAnswer(exchangeProbe, exchangeBodies[0] as string);
      if (answer.issued_token_type !== ACCESS_TOKEN_TYPE) throw new Error(`(g) token exchange answered ${JSON.stringify(answer)}`);
    }
    const [probe] = pregeneratedAssertions(1, signer) as [string];
    const pkjwtProbe = { url, headers: FORM_HEADERS, body: '' };
    await accessTokenOf(pkjwtProbe, pkjwtBody(probe));
    await expectAnswer(pkjwtProbe, pkjwtBody(probe), 401);
    const workloadSigner = { issuer: signer.issuer, key: fixtures.workloadKey, kid: WORKLOAD_KID };
    const workloadJwts = (count: number) => pregeneratedWorkloadJwts(count, workloadSigner, WORKLOAD_ISSUER, WORKLOAD_SUBJECT);
    const [workloadProbe] = workloadJwts(1) as [string];
    await accessTokenOf(pkjwtProbe, workloadBody(workloadProbe));
    await expectAnswer(pkjwtProbe, workloadBody(workloadProbe), 400);

    let nextSubject = 0;
    const exchange: LoadTarget = {
      url,
      headers: exchangeHeaders,
      body: exchangeBodies[0] as string,
      bodyPerRequest: () => exchangeBodies[nextSubject++ % exchangeBodies.length] as string,
    };
    /** Fresh assertions for one measurement (warm-up and run): enough unless the server outran client_secret_basic by half. */
    const measureSigned = async (ceiling: number, what: string, bodiesOf: (count: number) => string[]): Promise<MeteredLoad> => {
      const count = Math.ceil(ceiling * (settings.warmupSeconds + settings.durationSeconds) * ASSERTION_HEADROOM) + ASSERTION_MARGIN;
      const bodies = bodiesOf(count);
      let next = 0;
      const result = await measureMeteredLoad(
        server.child.pid,
        { url, headers: FORM_HEADERS, body: bodies[0] as string, bodyPerRequest: () => bodies[next++] ?? CC_BODY },
        settings,
      );
      // A body without an assertion would be refused and fail the bench anyway; say why.
      if (next > bodies.length) throw new Error(`(g) the ${count} pre-signed ${what} ran out after ${next} requests`);
      return result;
    };
    const measurePkjwt = (ceiling: number) =>
      measureSigned(ceiling, 'client assertions', (count) => pregeneratedAssertions(count, signer).map(pkjwtBody));
    const measureWorkload = (ceiling: number) => measureSigned(ceiling, 'workload JWTs', (count) => workloadJwts(count).map(workloadBody));

    const results: Record<keyof AuthExchangeCost, MeteredLoad[]> = { basic: [], pkjwt: [], exchange: [], workload: [] };
    // Not recorded: warms the server up and says how many assertions a run may need.
    let ceiling = (await measureLoad(basic, { ...settings, durationSeconds: settings.warmupSeconds })).requestsPerSecond;
    const variants: [keyof AuthExchangeCost, () => Promise<MeteredLoad>][] = [
      ['basic', () => measureMeteredLoad(server.child.pid, basic, settings)],
      ['pkjwt', () => measurePkjwt(ceiling)],
      ['exchange', () => measureMeteredLoad(server.child.pid, exchange, settings)],
      ['workload', () => measureWorkload(ceiling)],
    ];
    for (let round = 0; round < Math.max(2, settings.rounds); round += 1) {
      for (const [name, measure] of round % 2 === 0 ? variants : [...variants].reverse()) {
        const result = await measure();
        results[name].push(result);
        if (name === 'basic') ceiling = Math.max(ceiling, result.requestsPerSecond);
      }
    }
    return results;
  } finally {
    for (const stop of cleanups.reverse()) await stop();
  }
}

import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { AUTHORIZE_CLIENTS } from '../helpers/authorize-fixtures.js';
import { MARKER, Random } from '../helpers/fuzz.js';
import { capturedLogger } from '../helpers/logs.js';
import { NATIVE_CLIENT, withRegistration } from '../helpers/registration.js';
import { RESOURCES } from '../helpers/resource-fixtures.js';
import { buildTestServer } from '../helpers/server.js';

/**
 * Seeded hostile requests to the registration endpoints: odd JSON (wrong types, nesting,
 * huge and unicode values, prototype keys), other content types and methods, bad bearer
 * tokens. Every answer is below 500, errors are RFC 7591 JSON with no-store, and no
 * planted secret reaches a log line at trace; every registration answer is accepted back
 * unchanged by PUT (RFC 7592 §2.2). FUZZ_SEED replays a run.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const REQUESTS = 600;
const ERRORS = new Set(['invalid_request', 'invalid_client_metadata', 'invalid_redirect_uri', 'invalid_token', 'not_found']);
const INITIAL_TOKEN = `${MARKER}-initial-access-token-0123456789abcdef`;

const FIELDS = [
  'redirect_uris',
  'grant_types',
  'response_types',
  'token_endpoint_auth_method',
  'application_type',
  'client_name',
  'client_uri',
  'logo_uri',
  'scope',
  'software_id',
  'software_version',
  'client_id',
  'client_secret',
  '__proto__',
  'constructor',
  'contacts',
];
const STRINGS = [
  'https://a.example/cb',
  'http://127.0.0.1/cb',
  'http://localhost:1/cb',
  'com.example.app:/cb',
  'javascript:alert(1)',
  'https://a.example/cb#f',
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'password',
  'none',
  'client_secret_post',
  'native',
  'web',
  'tools files:read',
  '',
  ' ',
  '\u0000',
  '💥',
  '<script>',
  'ü'.repeat(300),
];

function value(r: Random, depth: number): unknown {
  const kind = r.int(depth > 2 ? 5 : 8);
  if (kind === 0) return r.pick(STRINGS);
  if (kind === 1) return r.chance(0.5) ? r.int(1e6) : -1.5;
  if (kind === 2) return r.chance(0.5) ? null : true;
  if (kind === 3) return `${MARKER}${r.int(1e6)}`;
  if (kind === 4) return 'x'.repeat(r.pick([201, 2001, 15_000]));
  if (kind === 5) return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
  return Object.fromEntries(Array.from({ length: r.int(4) }, () => [r.pick(FIELDS), value(r, depth + 1)]));
}

function body(r: Random): string {
  if (r.chance(0.1)) return r.bytes(r.int(64)).toString('latin1');
  if (r.chance(0.1)) return JSON.stringify(value(r, 0));
  const metadata: Record<string, unknown> = r.chance(0.5) ? { ...NATIVE_CLIENT } : {};
  for (let i = r.int(4); i > 0; i -= 1) metadata[r.pick(FIELDS)] = value(r, 1);
  const text = JSON.stringify(metadata);
  return r.chance(0.05) ? text.slice(0, r.int(text.length)) : text;
}

t.test(`registration fuzz: ${REQUESTS} requests (FUZZ_SEED=${SEED})`, async (t) => {
  const logs = capturedLogger('trace');
  const base = await buildTestServer(t, {
    clients: AUTHORIZE_CLIENTS,
    resources: RESOURCES,
    env: {
      DYNAMIC_CLIENT_REGISTRATION: 'token',
      REGISTRATION_INITIAL_ACCESS_TOKENS: hashClientSecret(INITIAL_TOKEN),
      REGISTRATION_RATE_LIMIT: '100000',
      LOG_LEVEL: 'trace',
    },
    logger: logs.logger,
  });
  const server = withRegistration(base.app, base, ClientRegistry.fromMetadata(AUTHORIZE_CLIENTS));
  const known = await server.register(NATIVE_CLIENT, { authorization: `Bearer ${INITIAL_TOKEN}` });
  t.equal(known.statusCode, 201);
  const { client_id: clientId, registration_access_token: managementToken } = known.json();
  const r = new Random(SEED);
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let roundTrips = 0;
  for (let i = 0; i < REQUESTS; i += 1) {
    const configuration = r.chance(0.4);
    const path = configuration
      ? `/oauth2/register/${r.pick([clientId, 'dyn_AAAAAAAAAAAAAAAAAAAAAA', 'web', '%F0%9F', 'x'.repeat(300)])}`
      : '/oauth2/register';
    const method = r.pick(configuration ? ['GET', 'PUT', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'] : ['POST', 'POST', 'POST', 'GET', 'OPTIONS']);
    const rightToken = configuration ? managementToken : INITIAL_TOKEN;
    const token = r.chance(0.6) ? rightToken : r.pick([INITIAL_TOKEN, managementToken, `${MARKER}${r.int(1e6)}`, '', 'a b', '=====']);
    const authorization = r.chance(0.6) ? `Bearer ${token}` : r.pick([`bearer  ${token}`, `Basic ${token}`, token, undefined]);
    const contentType = r.chance(0.6)
      ? 'application/json'
      : r.pick(['application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', undefined]);
    const payload = method === 'POST' || method === 'PUT' ? body(r) : undefined;
    // A deletion would end the known client early: only the first half of the run may delete it.
    if (method === 'DELETE' && path.endsWith(clientId) && i < REQUESTS / 2) continue;
    const res = await server.app.inject({
      method: method as 'GET',
      url: path,
      headers: { ...(authorization ? { authorization } : {}), ...(contentType ? { 'content-type': contentType } : {}) },
      ...(payload === undefined ? {} : { payload }),
    });
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    const problems: string[] = [];
    if (res.statusCode >= 500) problems.push(`status ${res.statusCode}`);
    if (res.statusCode >= 400) {
      const answer = res.json() as Record<string, unknown>;
      if (res.headers['cache-control'] !== 'no-store') problems.push('no no-store');
      if (!ERRORS.has(String(answer.error))) problems.push(`error ${String(answer.error)}`);
      if (Object.keys(answer).sort().join() !== 'error,error_description') problems.push('error body keys');
      if (!/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(String(answer.error_description))) problems.push('error_description charset');
      if (res.statusCode === 401 && !String(res.headers['www-authenticate']).startsWith('Bearer realm='))
        problems.push('401 without Bearer');
    }
    if (method === 'POST' && res.statusCode === 201) {
      // RFC 7592 §2.2: a client sends back the metadata as returned; that must be accepted unchanged.
      const answer = res.json() as Record<string, unknown>;
      const put = await server.manage('PUT', String(answer.client_id), String(answer.registration_access_token), answer);
      roundTrips += 1;
      if (put.statusCode !== 200 || put.body !== res.body) problems.push(`PUT of the answer: ${put.statusCode} ${put.body.slice(0, 200)}`);
    }
    if (problems.length > 0 && failures.length < 10)
      failures.push(`#${i} ${method} ${path} ${problems.join('; ')}: ${res.body.slice(0, 200)}`);
  }
  t.same(failures, [], `every answer holds (replay with FUZZ_SEED=${SEED})`);
  t.ok((statuses.get(201) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0 && (statuses.get(401) ?? 0) > 0, 'successes and refusals of each kind');
  t.ok(roundTrips > 0, `${roundTrips} registration answers sent back by PUT`);
  t.notOk(logs.text().includes(MARKER), 'no planted secret appears in any log line');
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
});

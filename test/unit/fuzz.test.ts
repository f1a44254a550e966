import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { type FuzzRequest, MARKER, Random, RequestGenerator } from '../helpers/fuzz.js';
import { capturedLogger } from '../helpers/logs.js';
import { listenOnFreePort, type RawResult, rawExchange } from '../helpers/raw-http.js';
import { RESOURCES } from '../helpers/resource-fixtures.js';
import { basic, buildTestServer } from '../helpers/server.js';

/**
 * Thousands of generated requests over a real socket to every route. Every answer must be
 * an HTTP answer below 500; back-channel errors must be RFC 6749 JSON with no-store; and
 * no secret planted in a request may appear in any log line, at trace. FUZZ_SEED replays a run.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_808);
const HTTP_REQUESTS = 2400;
const RAW_REQUESTS = 240;
const CONCURRENCY = 8;

const BACK_CHANNEL = new Set(['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect', '/oauth2/device_authorization']);
// RFC 6749 §5.2 error codes.
const TOKEN_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  // RFC 8707 §2 (registered for the token error response).
  'invalid_target',
  // RFC 8628 §3.5 (a device code grant's poll).
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
]);

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

function send(port: number, agent: Agent, req: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, agent, method: req.method, path: req.path, headers: req.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

function jsonError(answer: { body: string }): { error?: unknown; error_description?: unknown; keys: string[] } {
  try {
    const parsed = JSON.parse(answer.body) as Record<string, unknown>;
    return { ...parsed, keys: Object.keys(parsed).sort() };
  } catch {
    return { keys: [] };
  }
}

/** What is wrong with an answer, if anything. */
function problemsOf(req: FuzzRequest, answer: Answer): string[] {
  const problems: string[] = [];
  const path = req.path.split('?')[0] as string;
  const { status, headers } = answer;
  if (status >= 500) problems.push(`status ${status}`);
  if (status === 405 && !headers.allow) problems.push('405 without Allow');
  if (status < 400 || req.method === 'HEAD') return problems;
  // Answers of the HTTP parser (431, 400) come before routing, so without a request id, and always in JSON.
  const fromParser = headers['x-request-id'] === undefined;
  if (!fromParser && path.startsWith('/admin/v1')) {
    problems.push(...problemDetailsProblems(answer));
  } else if (!fromParser && (path === '/oauth2/authorize' || path.startsWith('/oauth2/authorize/') || path === '/device')) {
    if (headers['content-type'] !== 'text/html; charset=utf-8') problems.push(`browser error as ${headers['content-type']}`);
  } else {
    const body = jsonError(answer);
    if (headers['content-type'] !== 'application/json;charset=UTF-8') problems.push(`error as ${headers['content-type']}`);
    if (body.keys.join() !== 'error,error_description') problems.push(`error body keys ${body.keys.join()}`);
    const allowed = BACK_CHANNEL.has(path) || fromParser ? TOKEN_ERRORS : new Set(['not_found', 'invalid_request']);
    if (!allowed.has(body.error as string)) problems.push(`error code ${String(body.error)}`);
    // RFC 6749 §5.2: error_description is limited to %x20-21 / %x23-5B / %x5D-7E.
    if (!/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(String(body.error_description))) problems.push('error_description outside RFC 6749 §5.2');
    if (status === 401 && !String(headers['www-authenticate']).startsWith('Basic ')) problems.push('401 without WWW-Authenticate: Basic');
  }
  if (headers['cache-control'] !== 'no-store') problems.push(`cache-control ${headers['cache-control']}`);
  return problems;
}

/** The admin API answers errors as RFC 9457 problem details, and 401 with a Bearer challenge. */
function problemDetailsProblems(answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.headers['content-type'] !== 'application/problem+json') problems.push(`admin error as ${answer.headers['content-type']}`);
  const body = jsonError(answer) as Record<string, unknown> & { keys: string[] };
  const members = body.keys.filter((key) => !['errors', 'scope'].includes(key));
  if (members.join() !== 'detail,status,title,type') problems.push(`problem members ${body.keys.join()}`);
  if (!String(body.type).startsWith('urn:oauth2-token-service:problem:')) problems.push(`problem type ${String(body.type)}`);
  if (body.status !== answer.status) problems.push(`problem status ${String(body.status)}`);
  if (answer.status === 401 && !String(answer.headers['www-authenticate']).startsWith('Bearer '))
    problems.push('401 without a Bearer challenge');
  return problems;
}

function rawProblems(answer: RawResult): string[] {
  if (answer.status === undefined) return [`no HTTP answer${answer.reset ? ' (reset)' : ''}`];
  const problems = answer.status >= 500 ? [`status ${answer.status}`] : [];
  if (!answer.closed) problems.push('connection left open');
  if (answer.status >= 400 && answer.headers['cache-control'] !== 'no-store')
    problems.push(`cache-control ${answer.headers['cache-control']}`);
  return problems;
}

/** Runs `work` over `items`, CONCURRENCY at a time. */
async function inParallel<T>(items: readonly T[], work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const describe = (req: FuzzRequest | Buffer) =>
  (Buffer.isBuffer(req) ? JSON.stringify(req.toString('latin1')) : JSON.stringify(req)).slice(0, 600);

t.test(`fuzz: ${HTTP_REQUESTS} requests and ${RAW_REQUESTS} raw exchanges (FUZZ_SEED=${SEED})`, async (t) => {
  const logs = capturedLogger('trace');
  const clients = [
    ...AUTHORIZE_CLIENTS,
    { client_id: 'owner', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read' },
    {
      client_id: 'operator',
      client_secret_hash: hashClientSecret(WEB_SECRET),
      grant_types: ['client_credentials'],
      scope: 'admin:read admin:write',
    },
    { client_id: 'tv', token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] },
  ];
  const { app } = await buildTestServer(t, {
    clients,
    users: testUsers(),
    resources: RESOURCES,
    providers: [],
    env: { ENTRIES_ENCRYPTION_KEY: 'entries-encryption-key-0123456789abcdef', IDENTITY_PROVIDERS_ALLOW_INSECURE: 'false' },
    logger: logs.logger,
  });
  const port = await listenOnFreePort(app);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  t.teardown(() => agent.destroy());

  const admin = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('operator', WEB_SECRET) },
    payload: `grant_type=client_credentials&resource=${encodeURIComponent('https://as.example.com/admin/v1')}`,
  });
  const adminToken = (admin.json() as { access_token: string }).access_token;
  const generator = new RequestGenerator(new Random(SEED), adminToken);
  const requests = Array.from({ length: HTTP_REQUESTS }, () => generator.next());
  const raws = Array.from({ length: RAW_REQUESTS }, () => generator.nextRaw());
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const issued: string[] = [adminToken];
  const record = (index: number, what: string, problems: string[], status?: number) => {
    if (status !== undefined) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    if (problems.length > 0 && failures.length < 10) failures.push(`#${index} ${problems.join('; ')}\n  request: ${what}`);
  };

  const started = Date.now();
  await inParallel(requests, async (req, index) => {
    const answer = await send(port, agent, req).catch((err: Error) => err);
    if (answer instanceof Error) return record(index, describe(req), [`dropped: ${answer.message}`]);
    for (const field of ['access_token', 'refresh_token'] as const) {
      const value = answer.status === 200 ? (jsonError(answer) as Record<string, unknown>)[field] : undefined;
      if (typeof value === 'string') issued.push(value);
    }
    record(
      index,
      `${describe(req)}\n  answer: ${answer.status} ${JSON.stringify(answer.headers)} ${answer.body.slice(0, 200)}`,
      problemsOf(req, answer),
      answer.status,
    );
  });
  await inParallel(raws, async (raw, index) => {
    const answer = await rawExchange(port, raw, { waitMs: 3000, endAfterWrite: true });
    record(HTTP_REQUESTS + index, describe(raw), rawProblems(answer), answer.status);
  });
  const elapsed = Date.now() - started;

  t.same(failures, [], `every answer holds (replay with FUZZ_SEED=${SEED})`);
  t.ok(issued.length > 0, `some requests got through to issue tokens (${issued.length})`);
  const text = logs.text();
  t.ok(logs.lines().length > HTTP_REQUESTS, `${logs.lines().length} log lines captured`);
  t.notOk(text.includes(MARKER), 'no planted secret appears in any log line');
  t.notOk(
    issued.some((token) => text.includes(token)),
    'no issued token appears in any log line',
  );
  t.notOk(text.includes('rawPacket'), 'no raw packet is logged');
  const alarming = logs.lines().filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
  t.same(alarming.slice(0, 5), [], 'no warning or error was logged (no unexpected failure, no reply sent twice)');
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}; ${elapsed} ms`);
});

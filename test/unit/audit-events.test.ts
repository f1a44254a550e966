import t, { type Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { auditLog } from '../../src/events/audit-log.js';
import { AUDITED, fanOut, type SecurityEvent } from '../../src/events/types.js';
import { reloadKeysReporting, reportKeysLoaded } from '../../src/keys/reload-events.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import {
  authorizeUrl,
  codeRequest,
  formAction,
  formFields,
  InjectBrowser,
  pkcePair,
  redirectParams,
  signInAndDecide,
} from '../helpers/browser-flow.js';
import { capturedLogger } from '../helpers/logs.js';
import { registrationServer } from '../helpers/registration.js';
import { approvedCode, redeem, tokenRequest, tokenStatusRequest, webTokens } from '../helpers/security-flows.js';
import { buildTestServer } from '../helpers/server.js';

const LEGACY_SECRET = 'legacy-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  { client_id: 'legacy', client_secret_hash: hashClientSecret(LEGACY_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read' },
];

type Line = Record<string, unknown> & { event: string };

/** pino's own fields, and the audit mark. */
const POSITIONAL = new Set(['level', 'time', 'pid', 'hostname', 'reqId', 'audit', 'msg']);

/** A server logging at info into memory; `events()` are its audit lines, without pino's own fields. */
async function auditedServer(t: Test, env: Record<string, string> = {}) {
  const log = capturedLogger('info');
  const server = await buildTestServer(t, {
    clients: CLIENTS,
    users: testUsers(),
    logger: log.logger,
    env: { REFRESH_REUSE_GRACE: '0', ...env },
  });
  const events = (): Line[] =>
    log
      .lines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.audit === true)
      .map((line) => {
        const fields = Object.fromEntries(Object.entries(line).filter(([name]) => !POSITIONAL.has(name)));
        t.equal(line.level, 30, `${String(fields.event)} at info`);
        t.equal(line.msg, fields.event, 'the message is the event name');
        return fields as Line;
      });
  return { ...server, log, events };
}

/** Every log line, checked for each of `secrets`. */
function assertNoSecrets(t: Test, text: string, secrets: readonly string[]): void {
  for (const secret of secrets) t.notOk(text.includes(secret), `no secret in the logs (${secret.slice(0, 6)}…)`);
}

t.test('the authorization code flow: sign-in, approval, issuance, replay', async (t) => {
  const { app, log, events } = await auditedServer(t);
  const grant = await approvedCode(app);
  const issued = await redeem(app, grant);
  const tokens = issued.json() as { access_token: string; refresh_token: string };
  const replay = await redeem(app, grant);
  t.equal(replay.statusCode, 400);

  const [signedIn, approved, tokenIssued, replayed, revoked, ...rest] = events();
  t.same(rest, []);
  t.same(signedIn, { event: 'signin.succeeded', sub: 'user-alice', channel: 'login_page', address: '203.0.113.7' });
  const grantId = approved?.grantId as string;
  t.match(grantId, /^[A-Za-z0-9_-]{16,}$/);
  t.same(approved, {
    event: 'authorization.approved',
    clientId: 'web',
    sub: 'user-alice',
    responseType: 'code',
    scope: ['read'],
    resource: [],
    grantId,
  });
  const jti = JSON.parse(Buffer.from(tokens.access_token.split('.')[1] as string, 'base64url').toString()).jti as string;
  t.same(tokenIssued, {
    event: 'token.issued',
    grant: 'authorization_code',
    clientId: 'web',
    sub: 'user-alice',
    scope: ['read'],
    resource: [],
    jti,
    grantId,
    refreshToken: true,
  });
  t.same(replayed, { event: 'code.replayed', clientId: 'web', grantId });
  t.same(revoked, { event: 'grant.revoked', grantId, clientId: 'web', reason: 'code_replay' });
  assertNoSecrets(t, log.text(), [grant.code, grant.verifier, tokens.access_token, tokens.refresh_token, WEB_SECRET, ALICE.password]);
});

t.test('refresh rotation, reuse, and revocation', async (t) => {
  const { app, log, events } = await auditedServer(t);
  const tokens = await webTokens(app);
  const rotated = await tokenRequest(app, 'web', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
  const successor = rotated.json() as { access_token: string; refresh_token: string };
  t.equal(
    (await tokenRequest(app, 'web', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).statusCode,
    400,
  );
  const other = await webTokens(app);
  t.equal((await tokenStatusRequest(app, 'revoke', 'web', WEB_SECRET, other.refresh_token)).statusCode, 200);
  t.equal((await tokenStatusRequest(app, 'revoke', 'web', WEB_SECRET, other.access_token)).statusCode, 200);

  const all = events().filter((e) => !['signin.succeeded', 'authorization.approved'].includes(e.event));
  t.same(
    all.map((e) => e.event),
    ['token.issued', 'token.issued', 'refresh.reuse_detected', 'grant.revoked', 'token.issued', 'grant.revoked', 'token.revoked'],
  );
  const [first, refreshed, reuse, reuseRevoked, , revokedGrant, revokedToken] = all;
  t.match(refreshed, { grant: 'refresh_token', clientId: 'web', sub: 'user-alice', grantId: first?.grantId, refreshToken: true });
  t.same(reuse, { event: 'refresh.reuse_detected', clientId: 'web', sub: 'user-alice', grantId: first?.grantId });
  t.same(reuseRevoked, { event: 'grant.revoked', grantId: first?.grantId, clientId: 'web', reason: 'refresh_reuse' });
  t.same(revokedGrant, { event: 'grant.revoked', grantId: all[4]?.grantId, clientId: 'web', reason: 'revocation_request' });
  t.same(revokedToken, { event: 'token.revoked', clientId: 'web', jti: all[4]?.jti });
  assertNoSecrets(t, log.text(), [
    tokens.refresh_token,
    successor.refresh_token,
    successor.access_token,
    other.refresh_token,
    other.access_token,
  ]);
});

t.test('denial, implicit issuance, sign-in failures and throttling on both channels', async (t) => {
  const { app, log, events } = await auditedServer(t, { LOGIN_MAX_FAILURES: '1' });
  const { challenge } = pkcePair();
  await signInAndDecide(new InjectBrowser(app), codeRequest('web', WEB_REDIRECT, challenge), ALICE, 'deny');
  const implicit = await signInAndDecide(
    new InjectBrowser(app),
    { response_type: 'token', client_id: 'spa', redirect_uri: 'https://spa.example.com/cb', scope: 'read', state: 's' },
    ALICE,
  );
  const implicitToken = redirectParams(implicit.headers.location as string, 'fragment').access_token as string;
  t.ok(implicitToken);

  const browser = new InjectBrowser(app, '198.51.100.4');
  const login = await browser.get(authorizeUrl(codeRequest('web', WEB_REDIRECT, challenge)));
  const typedPassword = 'bobs-wrong-password';
  for (const status of [200, 429])
    t.equal(
      (await browser.post(formAction(login.body), { ...formFields(login.body), username: 'bob', password: typedPassword })).statusCode,
      status,
    );
  const wrong = { grant_type: 'password', username: 'user-0-unknown', password: 'a-guessed-password' };
  t.equal((await tokenRequest(app, 'legacy', LEGACY_SECRET, wrong)).statusCode, 400);
  t.equal((await tokenRequest(app, 'legacy', LEGACY_SECRET, wrong)).statusCode, 429);
  const password = await tokenRequest(app, 'legacy', LEGACY_SECRET, { grant_type: 'password', ...ALICE });
  t.equal(password.statusCode, 200);

  const all = events();
  t.same(
    all.map((e) => e.event),
    [
      'signin.succeeded',
      'authorization.denied',
      'signin.succeeded',
      'authorization.approved',
      'token.issued',
      'signin.failed',
      'signin.throttled',
      'signin.failed',
      'signin.throttled',
      'signin.succeeded',
      'token.issued',
    ],
  );
  t.same(all[1], { event: 'authorization.denied', clientId: 'web', sub: 'user-alice' });
  t.same(all[3], {
    event: 'authorization.approved',
    clientId: 'spa',
    sub: 'user-alice',
    responseType: 'token',
    scope: ['read'],
    resource: [],
  });
  t.match(all[4], { event: 'token.issued', grant: 'implicit', clientId: 'spa', sub: 'user-alice', refreshToken: false });
  t.match((all[4] as { grantId?: string }).grantId, /^[A-Za-z0-9_-]{22}$/, 'an implicit token has a grant id (grants revoke reaches it)');
  t.same(all[5], { event: 'signin.failed', channel: 'login_page', address: '198.51.100.4' });
  t.same(all[6], { event: 'signin.throttled', channel: 'login_page', address: '198.51.100.4', retryAfterSeconds: 900 });
  t.same(all[7], { event: 'signin.failed', channel: 'password_grant', address: '127.0.0.1' });
  t.match(all[8], { event: 'signin.throttled', channel: 'password_grant' });
  t.same(all[9], { event: 'signin.succeeded', sub: 'user-alice', channel: 'password_grant', address: '127.0.0.1' });
  t.match(all[10], {
    event: 'token.issued',
    grant: 'password',
    clientId: 'legacy',
    sub: 'user-alice',
    scope: ['read'],
    refreshToken: true,
  });
  const text = log.text();
  assertNoSecrets(t, text, [
    implicitToken,
    typedPassword,
    'a-guessed-password',
    ALICE.password,
    LEGACY_SECRET,
    (password.json() as { access_token: string }).access_token,
  ]);
  t.notOk(text.includes('user-0-unknown'), 'no typed username: it may be a password typed in the wrong field');
});

t.test('client registration and deletion', async (t) => {
  const log = capturedLogger('info');
  const server = await registrationServer(t, undefined, {}, { logger: log.logger });
  const client = await server.registered(t, {
    client_name: 'web',
    redirect_uris: ['https://app.example.org/cb'],
    grant_types: ['authorization_code'],
  });
  t.equal((await server.manage('DELETE', client.client_id, client.registration_access_token)).statusCode, 204);
  const audit = log
    .lines()
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.audit === true);
  t.match(audit, [
    {
      event: 'client.registered',
      clientId: client.client_id,
      authMethod: 'client_secret_basic',
      grantTypes: ['authorization_code'],
      address: '198.51.100.20',
    },
    { event: 'client.deleted', clientId: client.client_id },
  ]);
  t.equal(audit.length, 2);
  assertNoSecrets(t, log.text(), [client.client_secret as string, client.registration_access_token]);
});

t.test('key loads and failed reloads', async (t) => {
  const { keystore, keysDir, clock } = await buildTestServer(t);
  const lines: Record<string, unknown>[] = [];
  const events = auditLog({ info: (fields) => lines.push(fields) });
  const now = Math.floor(clock.now / 1000);
  const signingKid = keystore.signingKeyAt(now)?.kid;
  reportKeysLoaded(keystore, events, 'start', now);
  t.match(await reloadKeysReporting(keystore, events, 'SIGHUP', () => now), { ok: true });
  const { writeFile } = await import('node:fs/promises');
  await writeFile(`${keysDir}/broken.json`, '{not json', { mode: 0o600 });
  t.match(await reloadKeysReporting(keystore, events, 'interval', () => now), { ok: false });
  t.match(lines, [
    { audit: true, event: 'key.loaded', reason: 'start', keys: 1, signingKid },
    { audit: true, event: 'key.loaded', reason: 'SIGHUP', keys: 1, signingKid },
    { audit: true, event: 'key.reload_failed', reason: 'interval', message: /broken\.json/ },
  ]);
  t.equal(lines.length, 3);
  t.notOk(JSON.stringify(lines).includes('"d"'), 'no private key member');
});

t.test('fan-out: a consumer that throws stops neither the others nor the request', async (t) => {
  const seen: string[] = [];
  const errors: unknown[] = [];
  const events = fanOut(
    [
      {
        emit: () => {
          throw new Error('metrics broke');
        },
      },
      { emit: (e) => void seen.push(e.event) },
    ],
    (err) => errors.push(err),
  );
  events.emit({ event: 'client.deleted', clientId: 'dyn_x' });
  t.same(seen, ['client.deleted']);
  t.match(errors, [{ message: 'metrics broke' }]);
});

t.test('counted-only events are not audit lines', async (t) => {
  const lines: unknown[] = [];
  const log = auditLog({ info: (fields) => lines.push(fields) });
  const counted: SecurityEvent[] = [
    { event: 'token.failed', error: 'invalid_grant' },
    { event: 'authorization.failed', error: 'invalid_request' },
    { event: 'introspection.answered', active: true },
    { event: 'dpop.proof_failed', reason: 'bad signature' },
    { event: 'device.expired', clientId: 'tv', grantId: 'g' },
  ];
  for (const event of counted) log.emit(event);
  t.same(lines, []);
  t.same(
    Object.entries(AUDITED)
      .filter(([, audited]) => audited)
      .map(([name]) => name),
    [
      'token.issued',
      'authorization.approved',
      'authorization.denied',
      'device.authorization_started',
      'device.approved',
      'device.denied',
      'signin.succeeded',
      'signin.failed',
      'signin.throttled',
      'login.succeeded',
      'login.failed',
      'token.exchanged',
      'assertion.refused',
      'workload.refused',
      'refresh.reuse_detected',
      'code.replayed',
      'grant.revoked',
      'token.revoked',
      'sessions.revoked',
      'client.registered',
      'client.deleted',
      'client.authentication_failed',
      'key.loaded',
      'key.reload_failed',
      'key.revoked',
      'admin.changed',
    ],
  );
});

import { hostname, userInfo } from 'node:os';
import t, { type Test } from 'tap';
import { newGrantId } from '../../src/tokens/opaque.js';
import { ALICE, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { runCommand } from '../helpers/cli.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { buildTestServer } from '../helpers/server.js';
import { redisStore } from '../helpers/redis-stores.js';
import { TokenClient } from '../helpers/token-client.js';
import { CLIENTS } from '../suites/token-status.js';

/** `grants list|revoke` against the Redis a server writes its grants to. */

interface Tokens {
  readonly access_token: string;
  readonly refresh_token: string;
}

async function setup(t: Test) {
  const opened = await redisStore(t);
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), store: opened });
  const app = new TokenClient(server.app, 'app', WEB_SECRET);
  const mobile = new TokenClient(server.app, 'mobile', null);
  const rs = new TokenClient(server.app, 'rs', WEB_SECRET);
  const signIn = async (client: TokenClient, username: string, password: string) =>
    (await client.token({ grant_type: 'password', username, password })).json() as Tokens;
  const env = { REDIS_URL: opened.redis.url, REDIS_KEY_PREFIX: opened.keyPrefix };
  const grants = (...args: string[]) => runCommand(['grants', ...args], { env, clock: () => opened.clock.now });
  const grantIdOf = (tokens: Tokens) => tokens.refresh_token.split('.')[0] as string;
  const active = async (token: string) => (await rs.introspect(token)).active;
  return { ...server, app, mobile, signIn, grants, grantIdOf, active, opened };
}

const expiry = (clockNow: number, seconds: number) => new Date(clockNow + seconds * 1000).toISOString();

const OPERATOR = userInfo().username;

/**
 * The audit lines a command wrote to stderr, each checked for the servers' line shape
 * (pino's level, time, pid and hostname, `"audit":true`, msg = event), returned without
 * those fields, in order.
 */
function auditEvents(t: Test, stderr: string, now: number): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const { level, time, pid, hostname: host, audit, msg, ...event } = JSON.parse(line) as Record<string, unknown>;
      t.same(
        { level, time, pid, host, audit, msg },
        { level: 30, time: now, pid: process.pid, host: hostname(), audit: true, msg: event.event },
      );
      return event;
    });
}

t.test('grants list --sub and --client: the live grants, one line each, soonest expiry first', async (t) => {
  const { app, mobile, signIn, grants, grantIdOf, opened } = await setup(t);
  // One second apart, so the expiries (and the order) differ.
  const signedIn: { tokens: Tokens; at: number }[] = [];
  for (const [client, user, password] of [
    [app, ALICE.username, ALICE.password],
    [mobile, ALICE.username, ALICE.password],
    [app, 'bob', 'bob-password-1'],
  ] as const) {
    signedIn.push({ tokens: await signIn(client, user, password), at: opened.clock.now });
    await opened.advance(1);
  }
  const [first, onMobile, bobs] = signedIn as [(typeof signedIn)[0], (typeof signedIn)[0], (typeof signedIn)[0]];
  const line = ({ tokens, at }: (typeof signedIn)[0], sub: string, client: string) =>
    `grant=${grantIdOf(tokens)} sub=${sub} client=${client} expires=${expiry(at, 2_592_000)}`;

  const bySub = await grants('list', '--sub', 'user-alice');
  t.same(bySub, { code: 0, stdout: `${line(first, 'user-alice', 'app')}\n${line(onMobile, 'user-alice', 'mobile')}\n`, stderr: '' });
  const byClient = await grants('list', '--client', 'app');
  t.same(byClient, { code: 0, stdout: `${line(first, 'user-alice', 'app')}\n${line(bobs, 'bob', 'app')}\n`, stderr: '' });
  t.same(await grants('list', '--sub', 'nobody'), { code: 0, stdout: '', stderr: '' }, 'no grants: no lines, success');
});

t.test('grants revoke <grant id>: its refresh token dies, its access token is inactive; the others live', async (t) => {
  const { app, signIn, grants, grantIdOf, active, opened } = await setup(t);
  const revoked = await signIn(app, ALICE.username, ALICE.password);
  const kept = await signIn(app, ALICE.username, ALICE.password);
  const id = grantIdOf(revoked);
  const result = await grants('revoke', id);
  t.same({ code: result.code, stdout: result.stdout }, { code: 0, stdout: `revoked grant=${id}\n` });
  t.same(
    auditEvents(t, result.stderr, opened.clock.now),
    [{ event: 'grant.revoked', grantId: id, reason: 'administrator', operator: OPERATOR }],
    'one audit line: by id alone, the client and user are not known',
  );
  expectOAuthError(t, await app.refresh(revoked.refresh_token), { status: 400, error: 'invalid_grant' });
  t.equal(await active(revoked.access_token), false, 'introspection: inactive');
  t.equal(await active(kept.access_token), true);
  t.equal((await app.refresh(kept.refresh_token)).statusCode, 200, 'the other grant still refreshes');
  const listed = await grants('list', '--sub', 'user-alice');
  t.notMatch(listed.stdout, id, 'a revoked grant is no longer listed');
  t.match(listed.stdout, grantIdOf(kept));
});

t.test("grants revoke --sub: every grant of the user, on every client, and the user's remembered consent", async (t) => {
  const { app, mobile, signIn, grants, grantIdOf, active, opened } = await setup(t);
  const onApp = await signIn(app, ALICE.username, ALICE.password);
  const onMobile = await signIn(mobile, ALICE.username, ALICE.password);
  const bobs = await signIn(app, 'bob', 'bob-password-1');
  await opened.store.consents.rememberConsent('user-alice', 'web', { scope: ['read'], audiences: [] }, 600);
  await opened.store.consents.rememberConsent('bob', 'web', { scope: ['read'], audiences: [] }, 600);

  const result = await grants('revoke', '--sub', 'user-alice');
  t.equal(result.code, 0);
  t.same(
    auditEvents(t, result.stderr, opened.clock.now).sort((a, b) => String(a.clientId).localeCompare(String(b.clientId))),
    [
      {
        event: 'grant.revoked',
        grantId: grantIdOf(onApp),
        reason: 'administrator',
        clientId: 'app',
        sub: 'user-alice',
        operator: OPERATOR,
      },
      {
        event: 'grant.revoked',
        grantId: grantIdOf(onMobile),
        reason: 'administrator',
        clientId: 'mobile',
        sub: 'user-alice',
        operator: OPERATOR,
      },
    ],
    'one audit line per revoked grant, with its client and user',
  );
  t.match(result.stdout, `revoked grant=${grantIdOf(onApp)} sub=user-alice client=app`);
  t.match(result.stdout, `revoked grant=${grantIdOf(onMobile)} sub=user-alice client=mobile`);
  t.match(result.stdout, /\n2 grants revoked\n$/);
  for (const tokens of [onApp, onMobile]) t.equal(await active(tokens.access_token), false);
  expectOAuthError(t, await app.refresh(onApp.refresh_token), { status: 400, error: 'invalid_grant' });
  expectOAuthError(t, await mobile.refresh(onMobile.refresh_token), { status: 400, error: 'invalid_grant' });
  t.equal(await active(bobs.access_token), true, "another user's grant stays");
  t.equal(await opened.store.consents.findConsent('user-alice', 'web'), undefined, 'consent forgotten');
  t.same(await opened.store.consents.findConsent('bob', 'web'), { scope: ['read'], audiences: [] });
  t.same(await grants('list', '--sub', 'user-alice'), { code: 0, stdout: '', stderr: '' });
  t.same(await grants('revoke', '--sub', 'user-alice'), { code: 0, stdout: '0 grants revoked\n', stderr: '' });
});

t.test("grants revoke --client: every grant of the client, and its users' consent to it", async (t) => {
  const { app, mobile, signIn, grants, active, opened } = await setup(t);
  const alices = await signIn(mobile, ALICE.username, ALICE.password);
  const bobs = await signIn(mobile, 'bob', 'bob-password-1');
  const elsewhere = await signIn(app, ALICE.username, ALICE.password);
  await opened.store.consents.rememberConsent('user-alice', 'mobile', { scope: ['read'], audiences: [] }, 600);
  await opened.store.consents.rememberConsent('user-alice', 'web', { scope: ['read'], audiences: [] }, 600);
  const result = await grants('revoke', '--client', 'mobile');
  t.equal(result.code, 0);
  t.match(result.stdout, /\n2 grants revoked\n$/);
  t.equal(await active(alices.access_token), false);
  t.equal(await active(bobs.access_token), false);
  t.equal(await active(elsewhere.access_token), true, "another client's grant stays");
  t.equal(await opened.store.consents.findConsent('user-alice', 'mobile'), undefined);
  t.same(await opened.store.consents.findConsent('user-alice', 'web'), { scope: ['read'], audiences: [] });
});

t.test("grants revoke --client: every user's consent to the client, also where no live grant is left", async (t) => {
  const { app, signIn, grants, opened } = await setup(t);
  const bobs = await signIn(app, 'bob', 'bob-password-1');
  t.equal((await app.revoke(bobs.refresh_token)).statusCode, 200, "bob's only grant revoked at /oauth2/revoke");
  const consent = { scope: ['read'], audiences: ['https://as.example.com'] };
  await opened.store.consents.rememberConsent('bob', 'app', consent, 600);
  await opened.store.consents.rememberConsent('user-alice', 'app', consent, 600);
  await opened.store.consents.rememberConsent('user-alice', 'mobile', consent, 600);
  t.same(await grants('revoke', '--client', 'app'), { code: 0, stdout: '0 grants revoked\n', stderr: '' });
  t.equal(await opened.store.consents.findConsent('bob', 'app'), undefined, 'his grant was revoked before: his consent goes all the same');
  t.equal(await opened.store.consents.findConsent('user-alice', 'app'), undefined, 'a consent without any grant');
  t.same(await opened.store.consents.findConsent('user-alice', 'mobile'), consent, "another client's consent stays");
});

t.test('grants revoke <grant id> of a grant the store does not know: exit 1, nothing written', async (t) => {
  const { grants, opened } = await setup(t);
  const raw = await opened.raw();
  const before = (await raw.keys(`${opened.keyPrefix}*`)).sort();
  const unknown = newGrantId();
  const malformed = (id: string) =>
    `error: no such grant: ${JSON.stringify(id)} is not a grant id (22 characters: A-Z, a-z, 0-9, - and _)\n`;
  for (const [id, stderr] of [
    [unknown, `error: no such grant: "${unknown}" (never issued, or expired)\n`],
    [unknown.slice(0, 21), malformed(unknown.slice(0, 21))],
    ['abc*', malformed('abc*')],
    [`${unknown}\n`, `error: no such grant: "${unknown}\\n" is not a grant id (22 characters: A-Z, a-z, 0-9, - and _)\n`],
    [`{${unknown.slice(2)}}`, malformed(`{${unknown.slice(2)}}`)],
  ] as const) {
    t.same(await grants('revoke', id), { code: 1, stdout: '', stderr }, JSON.stringify(id));
  }
  t.same((await raw.keys(`${opened.keyPrefix}*`)).sort(), before, 'no key created');
  t.equal(await opened.store.isGrantRevoked(unknown), false);
});

t.test('grants revoke <grant id>: a grant known only by its index entry (implicit, or a code not yet redeemed)', async (t) => {
  const { grants, opened } = await setup(t);
  const grant = { grantId: newGrantId(), sub: 'user-alice', clientId: 'spa', expiresAt: opened.clock.now + 3_600_000 };
  await opened.store.grantIndex.indexGrant(grant);
  const result = await grants('revoke', grant.grantId);
  t.same([result.code, result.stdout], [0, `revoked grant=${grant.grantId}\n`]);
  t.equal(await opened.store.isGrantRevoked(grant.grantId), true);
  t.same((await grants('revoke', grant.grantId)).code, 0, 'revoking it again: it is still known');
  const expired = { ...grant, grantId: newGrantId() };
  await opened.store.grantIndex.indexGrant(expired);
  await opened.advance(3_601);
  t.same(await grants('revoke', expired.grantId), {
    code: 1,
    stdout: '',
    stderr: `error: no such grant: "${expired.grantId}" (never issued, or expired)\n`,
  });
});

t.test('expired grants leave the index with their family', async (t) => {
  const { app, signIn, grants, opened } = await setup(t);
  await signIn(app, ALICE.username, ALICE.password);
  await opened.advance(2_592_001);
  t.same(await grants('list', '--client', 'app'), { code: 0, stdout: '', stderr: '' });
});

t.test('without Redis the command fails (exit 1): the in-memory store lives inside one server', async (t) => {
  const result = await runCommand(['grants', 'list', '--sub', 'alice'], { env: {} });
  t.equal(result.code, 1);
  t.equal(result.stdout, '');
  t.match(
    result.stderr,
    /^error: grants live in the server's store, and no Redis is configured \(REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS\)/,
  );
});

t.test('usage errors exit 2', async (t) => {
  const env = { REDIS_URL: 'redis://127.0.0.1:1' };
  for (const [args, message] of [
    [['list'], 'give --sub SUB or --client CLIENT_ID'],
    [['list', '--sub', 'a', '--client', 'b'], 'give --sub or --client, not both'],
    [['revoke'], 'give a grant id, --sub SUB or --client CLIENT_ID'],
    [['revoke', 'abc', '--sub', 'a'], 'give a grant id, --sub or --client, only one of them'],
    [['revoke', 'a', 'b'], "unexpected argument 'b'"],
  ] as const) {
    const result = await runCommand(['grants', ...args], { env });
    t.equal(result.code, 2, args.join(' '));
    t.match(result.stderr, `error: ${message}\nusage: oauth2-token-service grants ${args[0]}`);
  }
});

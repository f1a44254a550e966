import { decodeJwt } from 'jose';
import type { Test } from 'tap';
import { endpointsOf } from '../../src/endpoints.js';
import { federatedSubject } from '../../src/identity/federated-subject.js';
import { ProviderRegistry } from '../../src/identity/providers.js';
import { upstreamServices } from '../../src/services/upstream.js';
import { UserRegistry } from '../../src/users/registry.js';
import { authorizeUrl } from '../helpers/browser-flow.js';
import { capturedLogger } from '../helpers/logs.js';
import { ISSUER, SESSION_COOKIE } from '../helpers/server.js';
import { holdsGrantUpstreamTokens, storeContents } from '../helpers/store-contents.js';
import type { TestStore } from '../helpers/stores.js';
import { pageForms, visitUpstream } from '../helpers/upstream-browser.js';
import {
  ACCOUNTS,
  codeRequest,
  completeAtUpstream,
  type Federation,
  federatedCode,
  federatedTokens,
  federation,
  redeem,
  signedOutUrl,
} from '../helpers/upstream-fixtures.js';
import type { UpstreamOidc } from '../helpers/upstream-oidc.js';

/**
 * What a sign-in through an upstream provider leaves behind, on a store (memory and Redis):
 * the upstream tokens kept (keep_tokens: sealed, per grant, revoked with it, refreshed), the
 * upstream's sign-out (end_session), the audit log, and a sign-in that survives a restart of
 * our server between the redirect and the callback.
 */

export interface UpstreamStoreAccess<S extends TestStore> {
  open(t: Test): Promise<S>;
  /** The store another instance (or a restarted one) opens on the same data. */
  reopen(t: Test, store: S): Promise<TestStore>;
}

const TOKEN_SECRET = 'upstream-token-secret-0123456789abcdefghij';

/** The server's upstream services as it builds them (the same config and store): its token vault, its providers' refresh. */
function serverUpstream(f: Federation, entries: unknown[]) {
  const services = upstreamServices(
    f.server.config,
    {
      providers: ProviderRegistry.fromEntries(entries, 'providers', { allowHttp: true }),
      store: f.server.store,
      users: UserRegistry.fromEntries([]),
    },
    { endpoints: endpointsOf(ISSUER), clock: () => f.server.clock.now, longestAccessTokenSeconds: 3600 },
  );
  if (!services) throw new Error('no upstream services');
  return services;
}

/** A federation whose provider keeps the upstream tokens, with the server's vault and providers. */
async function keepingTokens(t: Test, store: TestStore) {
  let entries: unknown[] = [];
  const f = await federation(t, {
    store,
    env: { UPSTREAM_TOKEN_SECRET: TOKEN_SECRET },
    providers: (u) => (entries = [u.providerEntry('corp', { keep_tokens: true })]),
  });
  return { f, ...serverUpstream(f, entries) };
}

function upstreamSecrets(upstream: UpstreamOidc): string[] {
  return upstream.issued.flatMap((issued) => [issued.access_token, issued.refresh_token ?? [], issued.id_token ?? []].flat());
}

export function upstreamSessionSuite<S extends TestStore>(t: Test, access: UpstreamStoreAccess<S>): void {
  t.test('keep_tokens: the upstream tokens sealed in the store, a copy per grant the vault opens, refreshed when expired', async (t) => {
    const store = await access.open(t);
    const { f, vault, providers } = await keepingTokens(t, store);
    const { tokens } = await federatedTokens(f, { login: ACCOUNTS.ada.sub });
    const [issued] = f.upstream.issued;
    const held = await storeContents(store);
    for (const secret of upstreamSecrets(f.upstream))
      t.notOk(
        held.some((line) => line.includes(secret)),
        'no upstream token in clear',
      );
    const grantId = decodeJwt(tokens.access_token as string).grant_id as string;
    const kept = await vault.forGrant(grantId, providers.refresh);
    const expiresAt = kept?.tokens.expiresAt as number;
    t.same(kept, {
      provider: 'corp',
      tokens: { accessToken: issued?.access_token, refreshToken: issued?.refresh_token, expiresAt, scope: 'openid email profile' },
    });
    t.ok(Math.abs(expiresAt - (Math.floor(f.server.clock.now / 1000) + 3600)) <= 2, 'the upstream access token expires in an hour');
    const sid = decodeJwt(tokens.id_token as string).sid as string;
    t.same((await vault.forSession(sid))?.tokens, kept?.tokens, 'the session keeps them too (for its next grants)');
    t.equal(f.upstream.requestsTo('/token').length, 1);

    await f.server.advance(3600);
    const refreshed = await vault.forGrant(grantId, providers.refresh);
    const renewed = f.upstream.issued[1];
    t.equal(f.upstream.requestsTo('/token').length, 2, 'expired: refreshed at the upstream');
    t.same([refreshed?.tokens.accessToken, refreshed?.tokens.refreshToken], [renewed?.access_token, renewed?.refresh_token]);
    t.same((await vault.forGrant(grantId, providers.refresh))?.tokens, refreshed?.tokens, 'kept: no second refresh');
    t.equal(f.upstream.requestsTo('/token').length, 2);
    const after = await storeContents(store);
    for (const secret of upstreamSecrets(f.upstream))
      t.notOk(
        after.some((line) => line.includes(secret)),
        'none after the refresh either',
      );
  });

  t.test('keep_tokens: revoking the grant (grants revoke) or replaying its code deletes its upstream tokens', async (t) => {
    const store = await access.open(t);
    const { f, vault, providers } = await keepingTokens(t, store);
    const revoked = await federatedTokens(f, { login: ACCOUNTS.ada.sub });
    const revokedGrant = decodeJwt(revoked.tokens.access_token as string).grant_id as string;
    t.ok(holdsGrantUpstreamTokens(await storeContents(store), revokedGrant));
    t.equal(await f.server.store.revokeKnownGrant(revokedGrant, 3600), true);
    t.notOk(holdsGrantUpstreamTokens(await storeContents(store), revokedGrant), 'gone with the revocation');
    t.equal(await vault.forGrant(revokedGrant, providers.refresh), undefined);

    const replayed = await federatedTokens(f, { login: ACCOUNTS.bob.sub });
    const replayedGrant = decodeJwt(replayed.tokens.access_token as string).grant_id as string;
    t.ok(holdsGrantUpstreamTokens(await storeContents(store), replayedGrant));
    t.equal((await redeem(f, replayed.code, replayed.verifier)).status, 400, 'the code again');
    t.notOk(holdsGrantUpstreamTokens(await storeContents(store), replayedGrant), 'gone with the replay');
    t.equal(await vault.forGrant(replayedGrant, providers.refresh), undefined);
  });

  t.test("end_session: our sign-out goes on to the upstream's end_session_endpoint and back to the client", async (t) => {
    const f = await federation(t, { store: await access.open(t), providers: (u) => [u.providerEntry('corp', { end_session: true })] });
    const { browser } = await federatedTokens(f, { login: ACCOUNTS.ada.sub });
    const logout = new URLSearchParams({ client_id: 'web', post_logout_redirect_uri: 'https://app.example.com/signed-out', state: 'bye' });
    const confirm = await browser.get(`/oauth2/logout?${logout}`);
    t.equal(confirm.status, 200);
    const toUpstream = await browser.submit(pageForms(confirm)[0] as NonNullable<ReturnType<typeof pageForms>[0]>);
    t.equal(toUpstream.status, 303);
    t.equal(browser.cookie(ISSUER, SESSION_COOKIE), undefined, 'our session is over');
    const end = toUpstream.location as URL;
    t.equal(`${end.origin}${end.pathname}`, `${f.upstream.issuer}/session/end`);
    t.same([...end.searchParams.keys()].sort(), ['client_id', 'id_token_hint', 'post_logout_redirect_uri', 'state']);
    t.equal(end.searchParams.get('id_token_hint'), f.upstream.issued[0]?.id_token, "the upstream's own ID token");
    t.equal(end.searchParams.get('post_logout_redirect_uri'), signedOutUrl('corp'));
    const page = await browser.get(end);
    t.equal(page.status, 200, "the upstream's sign-out confirmation");
    const back = await browser.submit(pageForms(page)[0] as NonNullable<ReturnType<typeof pageForms>[0]>);
    t.equal(back.location?.href.startsWith(`${signedOutUrl('corp')}?`), true, 'back to our signed-out URI');
    const atClient = await browser.get(back.location as URL);
    t.equal(atClient.status, 302);
    t.equal(atClient.location?.href, 'https://app.example.com/signed-out?state=bye', "the client's URI with its state");
    const again = await browser.follow(await browser.get(authorizeUrl(codeRequest({ idp: 'corp' }).params)));
    t.equal(pageForms(again)[0]?.fields.prompt, 'login', 'signed out at the upstream too: its login page again');
    const altered = new URL(back.location as URL);
    altered.searchParams.set('state', `${altered.searchParams.get('state')}x`);
    t.equal((await browser.get(altered)).status, 400, 'a way back with an altered state: the error page, no redirect');
  });

  t.test('without end_session, the sign-out of a federated user ends our session only', async (t) => {
    const f = await federation(t, { store: await access.open(t) });
    const { browser } = await federatedTokens(f, { login: ACCOUNTS.ada.sub });
    const confirm = await browser.get('/oauth2/logout?client_id=web&post_logout_redirect_uri=https://app.example.com/signed-out&state=bye');
    const done = await browser.submit(pageForms(confirm)[0] as NonNullable<ReturnType<typeof pageForms>[0]>);
    t.equal(done.status, 303);
    t.equal(done.location?.href, 'https://app.example.com/signed-out?state=bye');
    t.equal(f.upstream.requestsTo('/session/end').length, 0);
  });

  t.test('audit: login.succeeded and login.failed with the provider and the reason, and no token in any log line', async (t) => {
    const log = capturedLogger('info');
    const f = await federation(t, {
      store: await access.open(t),
      logger: log.logger,
      providers: (u) => [u.providerEntry('corp', { allowed_email_domains: ['example.com'], keep_tokens: true })],
      env: { UPSTREAM_TOKEN_SECRET: TOKEN_SECRET },
    });
    const ok = await federatedTokens(f, { login: ACCOUNTS.ada.sub });
    const refused = await federatedCode(f, { login: ACCOUNTS.eve.sub });
    const cancelled = await federatedCode(f, { login: ACCOUNTS.ada.sub, cancel: 'login' });
    const events = log
      .lines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'login.succeeded' || line.event === 'login.failed')
      .map(({ event, provider, sub, reason, clientId, address }) => ({ event, provider, sub, reason, clientId, address }));
    const common = { provider: 'corp', clientId: 'web', address: '203.0.113.7' };
    t.same(events, [
      { event: 'login.succeeded', ...common, sub: federatedSubject('corp', ACCOUNTS.ada.sub), reason: undefined },
      { event: 'login.failed', ...common, sub: undefined, reason: 'refused: email domain not allowed' },
      { event: 'login.failed', ...common, sub: undefined, reason: 'cancelled' },
    ]);
    const callbacks = [ok, refused, cancelled].flatMap(({ browser }) =>
      browser.history.filter((url) => url.pathname.endsWith('/callback')),
    );
    const secrets = [
      ...upstreamSecrets(f.upstream),
      ...Object.values(ok.tokens).filter((value) => typeof value === 'string' && value.length > 20),
      ok.code,
      ...callbacks.flatMap((url) => [url.searchParams.get('code') ?? [], url.searchParams.get('state') ?? []].flat()),
      ...f.upstream.authorizationRequests().flatMap((q) => [q.get('nonce') ?? [], q.get('code_challenge') ?? []].flat()),
    ];
    t.ok(secrets.length >= 12, `${secrets.length} secrets looked for`);
    for (const secret of secrets) t.notOk(log.text().includes(secret), `never logged: ${secret.slice(0, 8)}…`);
  });

  t.test('our server restarts between the redirect and the callback: the sign-in completes on the new instance', async (t) => {
    const store = await access.open(t);
    const first = await federation(t, { store });
    const browser = first.browser();
    const { params, verifier } = codeRequest({ idp: 'corp' });
    const toUpstream = await browser.get(authorizeUrl(params));
    const callback = await visitUpstream(browser, toUpstream, first.upstream.issuer, { login: ACCOUNTS.ada.sub });
    // The sign-in waits in the store, sealed: neither the upstream's state and nonce nor the client's request in clear.
    const upstreamRequest = first.upstream.authorizationRequests()[0];
    const pending = (await storeContents(store)).join('\n');
    for (const value of [upstreamRequest?.get('state'), upstreamRequest?.get('nonce'), params.state, params.nonce, params.code_challenge])
      t.notOk(pending.includes(value as string), 'not in the store in clear');
    await first.server.app.close();
    const second = await federation(t, {
      store: await access.reopen(t, store),
      runningUpstream: first.upstream,
      keysDir: first.server.keysDir,
    });
    browser.useServer(second.server.app);
    const end = await completeAtUpstream(second, browser, callback, { login: ACCOUNTS.ada.sub });
    const code = end.location?.searchParams.get('code');
    t.type(code, 'string', end.location?.href ?? String(end.status));
    const { status, body } = await redeem(second, code as string, verifier);
    t.equal(status, 200);
    t.equal(decodeJwt(body.access_token as string).sub, federatedSubject('corp', ACCOUNTS.ada.sub));
  });
}

import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import t, { type Test } from 'tap';
import { safeFetch } from '../../src/fetch/safe-request.js';
import { OidcUpstream } from '../../src/identity/oidc-upstream.js';
import { type OidcProviderConfig, ProviderRegistry } from '../../src/identity/providers.js';
import { upstreamFetchPolicy } from '../../src/identity/upstream-context.js';
import { type SignInDemands, type UpstreamChecks, type UpstreamIdentity, UpstreamSignInFailed } from '../../src/identity/upstream.js';
import { ACCOUNTS } from '../helpers/upstream-fixtures.js';
import { FlowBrowser, visitUpstream, type UpstreamVisit } from '../helpers/upstream-browser.js';
import { startUpstreamOidc, type UpstreamAccount, type UpstreamOidc, type UpstreamOidcOptions } from '../helpers/upstream-oidc.js';

/**
 * OidcUpstream (src/identity/oidc-upstream.ts) against node-oidc-provider as the upstream:
 * discovery (cached, a provider down at first use), the code exchange with PKCE, state,
 * nonce and RFC 9207 `iss`, the ID token's checks, userinfo, refresh, end-session, and the
 * client authentication the provider's metadata allows.
 */

const OURS = 'https://as.example.com';
const REDIRECT = `${OURS}/oauth2/upstream/corp/callback`;
const SIGNED_OUT = `${OURS}/oauth2/upstream/corp/signed-out`;

const ADA: UpstreamAccount = ACCOUNTS.ada;

/** Her profile as mapped (OpenID Connect Core §5.1 claims, well-typed). */
const ADA_PROFILE = {
  email: ADA.email,
  email_verified: true,
  name: ADA.name,
  preferred_username: ADA.preferred_username,
  picture: ADA.picture,
};

const CHECKS: UpstreamChecks = {
  state: 'state-0123456789abcdefghijklmnopqrstuvwxyz-abc',
  nonce: 'nonce-0123456789abcdefghijklmnopqrstuvwxyz-abc',
  codeVerifier: 'verifier-0123456789abcdefghijklmnopqrstuvwxyz-abcdef',
};

interface Setup {
  readonly upstream: UpstreamOidc;
  readonly provider: OidcUpstream;
  readonly clock: { now: number };
}

async function setup(t: Test, options: Partial<UpstreamOidcOptions> = {}, entry: Record<string, unknown> = {}): Promise<Setup> {
  const upstream = await startUpstreamOidc(t, {
    accounts: [ADA, ACCOUNTS.bob],
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [SIGNED_OUT],
    ...options,
  });
  const registry = ProviderRegistry.fromEntries(
    [upstream.providerEntry('corp', { scope: 'openid email profile groups', ...entry })],
    'providers',
    {
      allowHttp: true,
    },
  );
  const clock = { now: Date.now() };
  const context = {
    redirectUri: REDIRECT,
    signedOutUri: SIGNED_OUT,
    allowInsecure: true,
    fetch: safeFetch(upstreamFetchPolicy({ allowInsecure: true, allowPrivateAddresses: false })),
  };
  const provider = new OidcUpstream(registry.get('corp') as OidcProviderConfig, context, () => clock.now);
  return { upstream, provider, clock };
}

/** The callback URL the upstream sends the browser to, after the user's visit there. */
async function callbackFrom(
  s: Setup,
  visit: UpstreamVisit = { login: ADA.sub },
  demands: SignInDemands = { freshSignIn: false },
): Promise<URL> {
  const browser = new FlowBrowser({ ours: { origin: OURS }, followed: [s.upstream.issuer] });
  const url = await s.provider.authorizationUrl(CHECKS, demands);
  const back = await visitUpstream(browser, await browser.get(url), s.upstream.issuer, visit);
  if (back.location === undefined || !back.location.href.startsWith(REDIRECT)) throw new Error(`no callback: ${back.status}`);
  return back.location;
}

async function failure(t: Test, promise: Promise<unknown>): Promise<UpstreamSignInFailed> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, UpstreamSignInFailed);
  return err as UpstreamSignInFailed;
}

t.test('authorizationUrl: our client id, our redirect URI, the configured scope, state, nonce, PKCE S256', async (t) => {
  const s = await setup(t);
  const url = await s.provider.authorizationUrl(CHECKS, { freshSignIn: false });
  t.equal(`${url.origin}${url.pathname}`, `${s.upstream.issuer}/auth`);
  t.same(Object.fromEntries(url.searchParams), {
    client_id: s.upstream.clientId,
    redirect_uri: REDIRECT,
    scope: 'openid email profile groups',
    response_type: 'code',
    state: CHECKS.state,
    nonce: CHECKS.nonce,
    code_challenge: createHash('sha256').update(CHECKS.codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const fresh = await s.provider.authorizationUrl(CHECKS, { freshSignIn: true, maxAge: 300 });
  t.equal(fresh.searchParams.get('prompt'), 'login');
  t.equal(fresh.searchParams.get('max_age'), '300');
  const identity = await s.provider.complete(await callbackFrom(s, { login: ADA.sub }, { freshSignIn: true, maxAge: 300 }), CHECKS);
  const authTime = decodeJwt(s.upstream.issued[0]?.id_token as string).auth_time;
  t.equal(identity.authTime, authTime, "with max_age the provider's auth_time comes back");
  t.equal(typeof authTime, 'number');
  t.equal(s.provider.authorizationOrigin(), s.upstream.issuer, 'the origin of its authorization endpoint, as discovered');
});

t.test('discovery is made once, reused, and made again after an hour', async (t) => {
  const s = await setup(t);
  await s.provider.authorizationUrl(CHECKS, { freshSignIn: false });
  await s.provider.authorizationUrl(CHECKS, { freshSignIn: false });
  await s.provider.complete(await callbackFrom(s), CHECKS);
  t.equal(s.upstream.requestsTo('/.well-known/openid-configuration').length, 1, 'one discovery for every use');
  s.clock.now += 3599_000;
  await s.provider.authorizationUrl(CHECKS, { freshSignIn: false });
  t.equal(s.upstream.requestsTo('/.well-known/openid-configuration').length, 1, 'still fresh at 59:59');
  s.clock.now += 2_000;
  await s.provider.authorizationUrl(CHECKS, { freshSignIn: false });
  // Past the hour the cached configuration answers at once while a fresh one is fetched beside it.
  const deadline = Date.now() + 5000;
  while (s.upstream.requestsTo('/.well-known/openid-configuration').length < 2 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 10));
  t.equal(s.upstream.requestsTo('/.well-known/openid-configuration').length, 2, 'discovered again after an hour, in the background');
});

t.test('a provider down at first use: provider_unavailable, then it works once it is up, without a restart', async (t) => {
  const s = await setup(t);
  await s.upstream.stop();
  const down = await failure(t, s.provider.authorizationUrl(CHECKS, { freshSignIn: false }));
  t.equal(down.reason, 'provider_unavailable');
  t.equal(s.provider.authorizationOrigin(), s.upstream.issuer, 'the issuer origin until discovered');
  await s.upstream.start();
  const soon = await failure(t, s.provider.authorizationUrl(CHECKS, { freshSignIn: false }));
  t.equal(soon.reason, 'provider_unavailable', 'not asked again within 5 s of the failure');
  t.equal(s.upstream.requestsTo('/.well-known/openid-configuration').length, 0);
  s.clock.now += 5_000;
  const identity = await s.provider.complete(await callbackFrom(s), CHECKS);
  t.equal(identity.subject, ADA.sub);
});

t.test('a provider down after discovery: the sign-in starts from what it said, the exchange fails as unavailable', async (t) => {
  const s = await setup(t);
  const callback = await callbackFrom(s);
  await s.upstream.stop();
  s.clock.now += 3601_000;
  const url = await s.provider.authorizationUrl(CHECKS, { freshSignIn: false });
  t.equal(url.origin, s.upstream.issuer, 'the old configuration while the provider is down');
  const err = await failure(t, s.provider.complete(callback, CHECKS));
  t.equal(err.reason, 'provider_unavailable');
});

t.test('complete: the code exchanged (client_secret_basic), the ID token checked, who signed in', async (t) => {
  const s = await setup(t);
  const callback = await callbackFrom(s);
  t.equal(callback.searchParams.get('iss'), s.upstream.issuer, 'the provider sends RFC 9207 iss');
  const before = Math.floor(s.clock.now / 1000);
  const identity: UpstreamIdentity = await s.provider.complete(callback, CHECKS);
  const [issued] = s.upstream.issued;
  t.ok(issued?.refresh_token, 'the provider issued a refresh token');
  t.same(identity.profile, ADA_PROFILE);
  t.equal(identity.subject, ADA.sub);
  t.same(identity.claims.groups, ADA.groups, 'every claim, for required_claims');
  const expiresAt = identity.tokens.expiresAt as number;
  t.same(identity.tokens, {
    accessToken: issued?.access_token,
    refreshToken: issued?.refresh_token,
    expiresAt,
    scope: 'openid email profile groups',
    idToken: issued?.id_token,
  });
  // expires_in as the provider counted it on its own clock (3600, or 3599 across a second).
  t.ok(expiresAt >= before + 3599 && expiresAt <= before + 3600, 'expires_in counted from our clock');
  t.equal(identity.authTime, undefined, 'the provider says auth_time only when asked');
  const [token] = s.upstream.requestsTo('/token');
  t.equal(token?.authorizationScheme, 'Basic', 'client_secret_basic: the default the metadata allows');
  t.equal(s.upstream.requestsTo('/me').length, 0, 'the ID token had every mapped claim: no userinfo');
  t.equal(decodeJwt(issued?.id_token as string).nonce, CHECKS.nonce);
});

t.test('client_secret_post when the provider supports only that, or when the entry says so', async (t) => {
  const postOnly = await setup(t, { authMethods: ['client_secret_post'] });
  await postOnly.provider.complete(await callbackFrom(postOnly), CHECKS);
  t.equal(postOnly.upstream.requestsTo('/token')[0]?.authorizationScheme, undefined, 'credentials in the body');
  const chosen = await setup(
    t,
    { authMethods: ['client_secret_post', 'client_secret_basic'] },
    { token_endpoint_auth_method: 'client_secret_post' },
  );
  await chosen.provider.complete(await callbackFrom(chosen), CHECKS);
  t.equal(chosen.upstream.requestsTo('/token')[0]?.authorizationScheme, undefined);
  const basic = await setup(t, { authMethods: ['client_secret_basic'] });
  await basic.provider.complete(await callbackFrom(basic), CHECKS);
  t.equal(basic.upstream.requestsTo('/token')[0]?.authorizationScheme, 'Basic');
});

t.test('an ID token without the profile claims: userinfo is asked, with the access token, and its sub checked', async (t) => {
  const s = await setup(t, { claimsInIdToken: false });
  const identity = await s.provider.complete(await callbackFrom(s), CHECKS);
  const id = decodeJwt(s.upstream.issued[0]?.id_token as string);
  t.equal(id.email, undefined, 'the ID token has no email');
  const [userinfo] = s.upstream.requestsTo('/me');
  t.equal(userinfo?.authorizationScheme, 'Bearer');
  t.same(identity.profile, ADA_PROFILE);
  t.same(identity.claims.groups, ADA.groups, 'userinfo claims count for required_claims');

  s.upstream.tamperUserinfo = (claims) => ({ ...claims, sub: 'bob-456' });
  const err = await failure(t, s.provider.complete(await callbackFrom(s), CHECKS));
  t.equal(err.reason, 'invalid_response', "userinfo for another sub than the ID token's is refused (Core §5.3.2)");
});

t.test('an ID token with a wrong nonce, issuer or audience: the sign-in fails', async (t) => {
  const s = await setup(t);
  const cases: [string, (claims: Record<string, unknown>) => Record<string, unknown>][] = [
    ['nonce', (c) => ({ ...c, nonce: 'another-nonce' })],
    ['iss', (c) => ({ ...c, iss: 'http://127.0.0.1:1' })],
    ['aud', (c) => ({ ...c, aud: 'another-client' })],
    ['no nonce', ({ nonce: _, ...c }) => c],
  ];
  for (const [name, tamper] of cases) {
    s.upstream.tamperIdToken = tamper;
    const err = await failure(t, s.provider.complete(await callbackFrom(s), CHECKS));
    t.equal(err.reason, 'invalid_response', name);
  }
  s.upstream.tamperIdToken = undefined;
  t.equal((await s.provider.complete(await callbackFrom(s), CHECKS)).subject, ADA.sub, 'untampered: fine');
});

t.test('a tampered callback fails: another state, another or no iss, a code used before, a wrong verifier', async (t) => {
  const s = await setup(t);
  const callback = await callbackFrom(s);
  const withParam = (name: string, value: string) => {
    const url = new URL(callback);
    url.searchParams.set(name, value);
    return url;
  };
  t.equal((await failure(t, s.provider.complete(withParam('state', 'other-state'), CHECKS))).reason, 'invalid_response');
  t.equal((await failure(t, s.provider.complete(withParam('iss', 'http://127.0.0.1:1'), CHECKS))).reason, 'invalid_response');
  const withoutIss = new URL(callback);
  withoutIss.searchParams.delete('iss');
  t.equal(
    (await failure(t, s.provider.complete(withoutIss, CHECKS))).reason,
    'invalid_response',
    'RFC 9207: iss is required from a provider that says it sends it',
  );
  t.equal(
    (await failure(t, s.provider.complete(callback, { ...CHECKS, codeVerifier: `${CHECKS.codeVerifier}x` }))).reason,
    'upstream_error',
    'the provider refuses the PKCE verifier (invalid_grant)',
  );
  t.equal(s.upstream.requestsTo('/token').length, 1, 'nothing sent for a callback that does not pass the checks');
  const fresh = await callbackFrom(s);
  t.equal((await s.provider.complete(fresh, CHECKS)).subject, ADA.sub);
  t.equal((await failure(t, s.provider.complete(fresh, CHECKS))).reason, 'upstream_error', 'a code used before: invalid_grant');
});

t.test('the user cancels at the provider: cancelled', async (t) => {
  const s = await setup(t);
  const callback = await callbackFrom(s, { login: ADA.sub, cancel: 'login' });
  t.equal(callback.searchParams.get('error'), 'access_denied');
  t.equal((await failure(t, s.provider.complete(callback, CHECKS))).reason, 'cancelled');
  t.equal(s.upstream.requestsTo('/token').length, 0);
});

t.test('refresh: fresh tokens from the refresh token (rotated by the provider)', async (t) => {
  const s = await setup(t);
  const identity = await s.provider.complete(await callbackFrom(s), CHECKS);
  s.clock.now += 10_000;
  const fresh = await s.provider.refresh(identity.tokens.refreshToken as string);
  const renewed = s.upstream.issued[1];
  const now = Math.floor(s.clock.now / 1000);
  t.ok((fresh.expiresAt as number) >= now + 3599 && (fresh.expiresAt as number) <= now + 3600, 'expires_in from our clock');
  t.same(fresh, {
    accessToken: renewed?.access_token,
    refreshToken: renewed?.refresh_token,
    expiresAt: fresh.expiresAt,
    scope: 'openid email profile groups',
    idToken: renewed?.id_token,
  });
  t.not(fresh.accessToken, identity.tokens.accessToken);
  t.not(fresh.refreshToken, identity.tokens.refreshToken, 'rotated');
  const reused = await failure(t, s.provider.refresh(identity.tokens.refreshToken as string));
  t.equal(reused.reason, 'upstream_error', 'the rotated token is refused (invalid_grant)');
});

t.test("endSessionUrl: the provider's end_session_endpoint with id_token_hint, our signed-out URI and state", async (t) => {
  const s = await setup(t);
  const identity = await s.provider.complete(await callbackFrom(s), CHECKS);
  const url = await s.provider.endSessionUrl(identity.tokens.idToken, SIGNED_OUT, 'signed-state');
  t.equal(`${url?.origin}${url?.pathname}`, `${s.upstream.issuer}/session/end`);
  t.same(Object.fromEntries(url?.searchParams ?? []), {
    client_id: s.upstream.clientId,
    id_token_hint: identity.tokens.idToken,
    post_logout_redirect_uri: SIGNED_OUT,
    state: 'signed-state',
  });
  const browser = new FlowBrowser({ ours: { origin: OURS }, followed: [s.upstream.issuer] });
  const page = await browser.get(url as URL);
  t.equal(page.status, 200, 'the provider accepts it: its sign-out confirmation');
  const noHint = await s.provider.endSessionUrl(undefined, SIGNED_OUT, 'st');
  t.equal(noHint?.searchParams.has('id_token_hint'), false);
});

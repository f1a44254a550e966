import { createHash, randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { GithubUpstream } from '../../src/identity/github-upstream.js';
import { type GithubProviderConfig, ProviderRegistry } from '../../src/identity/providers.js';
import { upstreamFetchPolicy } from '../../src/identity/upstream-context.js';
import { type UpstreamChecks, UpstreamSignInFailed } from '../../src/identity/upstream.js';
import { safeFetch } from '../../src/fetch/safe-request.js';
import { type GithubAccount, GithubServer, type GithubServerOptions, visitGithub } from '../helpers/github-server.js';

/**
 * GithubUpstream (src/identity/github-upstream.ts) against the GitHub-compatible test
 * server: the authorization URL, the code exchange (openid-client), the REST API calls, the
 * identity and profile they give, and each failure as the reason the audit log names.
 */

const CALLBACK = 'https://as.example.com/oauth2/upstream/github/callback';
const NOW = Date.UTC(2026, 0, 1);

async function github(t: Test, options: Partial<GithubServerOptions> = {}): Promise<GithubServer> {
  return GithubServer.start(t, { callbackUrl: CALLBACK, autoApprove: true, ...options });
}

function upstreamOf(server: GithubServer, extra: Record<string, unknown> = {}): GithubUpstream {
  const config = ProviderRegistry.fromEntries([server.provider(extra)], 'providers', { allowHttp: true }).get('github');
  const policy = upstreamFetchPolicy({ allowInsecure: true, allowPrivateAddresses: false });
  return new GithubUpstream(
    config as GithubProviderConfig,
    { redirectUri: CALLBACK, signedOutUri: `${CALLBACK}/../signed-out`, fetch: safeFetch(policy), allowInsecure: true },
    () => NOW,
  );
}

const freshChecks = (): UpstreamChecks => ({
  state: randomBytes(16).toString('base64url'),
  nonce: randomBytes(16).toString('base64url'),
  codeVerifier: randomBytes(32).toString('base64url'),
});

/** octocat signed in at GitHub, having authorized: the callback to complete. */
async function authorizedAt(t: Test) {
  const server = await github(t);
  octocat(server);
  const upstream = upstreamOf(server);
  const checks = freshChecks();
  const callback = await visitGithub(await upstream.authorizationUrl(checks, { freshSignIn: false }));
  return { server, upstream, checks, callback };
}

async function signIn(upstream: GithubUpstream, checks = freshChecks()) {
  return upstream.complete(await visitGithub(await upstream.authorizationUrl(checks, { freshSignIn: false }), 'authorize'), checks);
}

async function failure(t: Test, promise: Promise<unknown>): Promise<UpstreamSignInFailed> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, UpstreamSignInFailed);
  return err as UpstreamSignInFailed;
}

function octocat(server: GithubServer, extra: Partial<GithubAccount> = {}): GithubAccount {
  const account = server.addAccount({
    id: 583231,
    login: 'octocat',
    name: 'The Octocat',
    emails: [
      { email: 'octocat@github.com', primary: true, verified: true, visibility: 'public' },
      { email: 'cat@example.org', primary: false, verified: true, visibility: null },
    ],
    ...extra,
  });
  server.signIn(account);
  return account;
}

t.test('the authorization URL: our client id, our redirect URI, the configured scope, state and S256; nothing else', async (t) => {
  const server = await github(t);
  const checks = freshChecks();
  const challenge = createHash('sha256').update(checks.codeVerifier).digest('base64url');
  const url = await upstreamOf(server).authorizationUrl(checks, { freshSignIn: false, maxAge: 600 });
  t.equal(`${url.origin}${url.pathname}`, `${server.baseUrl}/login/oauth/authorize`);
  t.same(Object.fromEntries(url.searchParams), {
    client_id: server.clientId,
    redirect_uri: CALLBACK,
    scope: 'read:user user:email',
    state: checks.state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  t.equal([...url.searchParams].length, 6, 'each once; no max_age (GitHub has none)');
  const fresh = await upstreamOf(server).authorizationUrl(checks, { freshSignIn: true, maxAge: 0 });
  t.equal(fresh.searchParams.get('prompt'), 'select_account', "a fresh sign-in: GitHub's account picker");
  const added = await upstreamOf(server, { authorization_params: { allow_signup: 'false' } }).authorizationUrl(checks, {
    freshSignIn: false,
  });
  t.equal(added.searchParams.get('allow_signup'), 'false', "the operator's authorization_params");

  const orgs = await upstreamOf(server, { allowed_organizations: ['acme'] }).authorizationUrl(checks, { freshSignIn: false });
  t.equal(orgs.searchParams.get('scope'), 'read:user user:email read:org', 'read:org added for allowed_organizations');
  const own = await upstreamOf(server, { scope: 'user:email read:org', allowed_organizations: ['acme'] }).authorizationUrl(checks, {
    freshSignIn: false,
  });
  t.equal(own.searchParams.get('scope'), 'user:email read:org', 'a configured scope as it is, read:org not twice');
  t.equal(upstreamOf(server).authorizationOrigin(), server.baseUrl);
});

t.test('a sign-in: the numeric id is the subject; the profile from /user and the primary verified email', async (t) => {
  const server = await github(t);
  octocat(server);
  const checks = freshChecks();
  const identity = await signIn(upstreamOf(server), checks);
  t.equal(identity.subject, '583231');
  t.same(identity.profile, {
    email: 'octocat@github.com',
    email_verified: true,
    name: 'The Octocat',
    preferred_username: 'octocat',
    picture: 'https://avatars.githubusercontent.com/u/583231?v=4',
  });
  t.equal(identity.organizations, undefined, 'no organizations read without allowed_organizations');
  t.same(server.requestsTo('api', '/user/orgs'), []);
  t.match(identity.tokens, { accessToken: /^gho_/, scope: 'read:user,user:email' });
  t.equal(identity.tokens.refreshToken, undefined);
  t.equal(identity.tokens.expiresAt, undefined, 'an OAuth app token does not expire');

  const [exchange] = server.requestsTo('web', '/login/oauth/access_token');
  t.match(exchange?.headers.accept, /application\/json/);
  t.same(Object.fromEntries(exchange?.form ?? []), {
    redirect_uri: CALLBACK,
    code: exchange?.form?.get('code'),
    code_verifier: checks.codeVerifier,
    grant_type: 'authorization_code',
    client_id: server.clientId,
    client_secret: server.clientSecret,
  });
  const apiCalls = server.requests.filter((r) => r.site === 'api');
  t.same(
    apiCalls.map((r) => r.path),
    ['/user', '/user/emails'],
  );
  for (const call of apiCalls) {
    t.equal(call.headers.authorization, `Bearer ${identity.tokens.accessToken}`);
    t.equal(call.headers.accept, 'application/vnd.github+json');
  }
});

t.test('a renamed login keeps its subject; another user has another', async (t) => {
  const server = await github(t);
  const account = octocat(server);
  const upstream = upstreamOf(server);
  const before = await signIn(upstream);
  account.login = 'octo-renamed';
  const after = await signIn(upstream);
  t.equal(after.subject, before.subject);
  t.equal(after.profile.preferred_username, 'octo-renamed');
  server.signIn(server.addAccount({ id: 9919, login: 'octocat' }));
  const other = await signIn(upstream);
  t.equal(other.subject, '9919', 'the login octocat is now someone else: the id says who');
  t.same(other.profile, { preferred_username: 'octocat', picture: 'https://avatars.githubusercontent.com/u/9919?v=4' });
});

t.test('email: only the primary address when GitHub verified it', async (t) => {
  const server = await github(t);
  octocat(server, {
    emails: [
      { email: 'unverified@example.com', primary: true, verified: false, visibility: 'private' },
      { email: 'verified@example.com', primary: false, verified: true, visibility: null },
    ],
    email: 'unverified@example.com',
  });
  const identity = await signIn(upstreamOf(server));
  t.equal(identity.profile.email, undefined, 'no email: the primary is unverified, and another is not the user’s choice');
  t.equal(identity.profile.email_verified, undefined);
  t.equal(identity.profile.preferred_username, 'octocat');
});

t.test('without the user:email scope GitHub answers /user/emails 404: a profile without email', async (t) => {
  const server = await github(t);
  octocat(server);
  const identity = await signIn(upstreamOf(server, { scope: 'read:user' }));
  t.equal(identity.subject, '583231');
  t.equal(identity.profile.email, undefined);
  t.equal(server.requestsTo('api', '/user/emails').length, 1);
});

t.test('organizations are read page by page (100 each)', async (t) => {
  const server = await github(t);
  const orgs = Array.from({ length: 250 }, (_, i) => ({ login: `org-${i}`, id: 1000 + i }));
  octocat(server, { orgs });
  const identity = await signIn(upstreamOf(server, { allowed_organizations: ['org-249'] }));
  t.same(
    identity.organizations,
    orgs.map((o) => o.login),
  );
  t.same(
    server.requestsTo('api', '/user/orgs').map((r) => Object.fromEntries(r.query)),
    [
      { per_page: '100', page: '1' },
      { per_page: '100', page: '2' },
      { per_page: '100', page: '3' },
    ],
  );
});

t.test('failures, as the audit log names them', async (t) => {
  t.test('the user cancels at GitHub: cancelled', async (t) => {
    const server = await github(t, { autoApprove: false });
    octocat(server);
    const upstream = upstreamOf(server);
    const checks = freshChecks();
    const callback = await visitGithub(await upstream.authorizationUrl(checks, { freshSignIn: false }), 'cancel');
    t.equal(callback.searchParams.get('error'), 'access_denied');
    t.equal(callback.searchParams.get('state'), checks.state);
    t.equal((await failure(t, upstream.complete(callback, checks))).reason, 'cancelled');
    t.same(server.requestsTo('web', '/login/oauth/access_token'), [], 'no code exchange');
  });

  t.test('a used code: GitHub answers bad_verification_code (with HTTP 200): upstream_error', async (t) => {
    const { upstream, checks, callback } = await authorizedAt(t);
    await upstream.complete(callback, checks);
    const err = await failure(t, upstream.complete(callback, checks));
    t.equal(err.reason, 'upstream_error');
    t.equal(err.message, 'the code exchange: the provider answered bad_verification_code');
  });

  t.test('a code older than 10 minutes: upstream_error', async (t) => {
    const { server, upstream, checks, callback } = await authorizedAt(t);
    server.advance(601);
    t.equal((await failure(t, upstream.complete(callback, checks))).reason, 'upstream_error');
  });

  t.test('another code verifier than the challenge: GitHub refuses the code (PKCE)', async (t) => {
    const { upstream, checks, callback } = await authorizedAt(t);
    const err = await failure(t, upstream.complete(callback, { ...checks, codeVerifier: freshChecks().codeVerifier }));
    t.equal(err.message, 'the code exchange: the provider answered bad_verification_code');
  });

  t.test('a wrong client secret: incorrect_client_credentials, upstream_error', async (t) => {
    const server = await github(t);
    octocat(server);
    const upstream = upstreamOf(server, { client_secret: 'not-the-secret' });
    const err = await failure(t, signIn(upstream));
    t.equal(err.reason, 'upstream_error');
    t.equal(err.message, 'the code exchange: the provider answered incorrect_client_credentials');
  });

  t.test('GitHub down: provider_unavailable', async (t) => {
    const { server, upstream, checks, callback } = await authorizedAt(t);
    await server.close();
    t.equal((await failure(t, upstream.complete(callback, checks))).reason, 'provider_unavailable');
  });

  t.test('GitHub fails to list the addresses (HTTP 500): upstream_error, not a user without email', async (t) => {
    const server = await github(t);
    octocat(server);
    server.failApi('/user/emails', 500);
    const err = await failure(t, signIn(upstreamOf(server)));
    t.equal(err.reason, 'upstream_error');
    t.equal(err.message, 'GET /user/emails: status 500');
  });

  t.test('an api_url that is not the API (GitHub answers 404): upstream_error', async (t) => {
    const server = await github(t);
    octocat(server);
    const err = await failure(t, signIn(upstreamOf(server, { api_url: server.baseUrl })));
    t.equal(err.reason, 'upstream_error');
    t.equal(err.message, 'GET /user: status 404');
  });
});

t.test('refresh (GitHub App user tokens): new tokens, the refresh token rotated', async (t) => {
  const server = await github(t, { expiringTokens: true });
  octocat(server);
  const upstream = upstreamOf(server);
  const identity = await signIn(upstream);
  t.match(identity.tokens, { accessToken: /^ghu_/, refreshToken: /^ghr_/, expiresAt: Math.floor(NOW / 1000) + 28_800 });
  const refreshed = await upstream.refresh(identity.tokens.refreshToken as string);
  t.match(refreshed, { accessToken: /^ghu_/, refreshToken: /^ghr_/, expiresAt: Math.floor(NOW / 1000) + 28_800 });
  t.not(refreshed.accessToken, identity.tokens.accessToken);
  const [request] = server.requestsTo('web', '/login/oauth/access_token').slice(-1);
  t.same(Object.fromEntries(request?.form ?? []), {
    grant_type: 'refresh_token',
    refresh_token: identity.tokens.refreshToken,
    client_id: server.clientId,
    client_secret: server.clientSecret,
  });
  const err = await failure(t, upstream.refresh(identity.tokens.refreshToken as string));
  t.equal(err.reason, 'upstream_error');
  t.equal(err.message, 'the refresh: the provider answered bad_refresh_token');
});

import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import type { Test } from 'tap';
import { federatedSubject } from '../../src/identity/federated-subject.js';
import { AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, pkcePair, redirectParams } from '../helpers/browser-flow.js';
import { type GithubAccount, GithubServer, type GithubServerOptions, visitGithub } from '../helpers/github-server.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER, type TestServer } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * Sign-in through GitHub (run on memory and on Redis): our server through inject(), the
 * GitHub-compatible test server over HTTP. The login page's "Continue with GitHub", GitHub's
 * page, the callback, our consent, the code at the client and its tokens; the federated sub
 * (from GitHub's numeric id: stable across sign-ins and a login rename); userinfo with
 * GitHub's verified email; allowed_organizations and allowed_email_domains; a cancel at
 * GitHub; GitHub Enterprise's URLs.
 */

const CALLBACK = `${ISSUER}/oauth2/upstream/github/callback`;
const REFUSED = 'the identity provider signed the user in, but this server does not let that user sign in';

interface Setup {
  readonly server: TestServer;
  readonly github: GithubServer;
}

/** Flows ending at the client: the response that sent the browser there, and for a code, the token response. */
interface Outcome {
  readonly response: LightMyRequestResponse;
  readonly location: Record<string, string>;
}

/** The form of the login page's provider buttons: where it posts and its hidden fields. */
function providerForm(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form class="providers"[\s\S]*?<\/form>/.exec(html)?.[0];
  if (form === undefined) throw new Error('no provider buttons on the page');
  return { action: formAction(form.replace(' class="providers"', '')), fields: formFields(form) };
}

export function upstreamGithubSuite(t: Test, openStore: OpenStore): void {
  async function start(t: Test, provider: Record<string, unknown> = {}, options: Partial<GithubServerOptions> = {}): Promise<Setup> {
    const github = await GithubServer.start(t, { callbackUrl: CALLBACK, ...options });
    const server = await buildTestServer(t, {
      store: await openStore(t),
      clients: AUTHORIZE_CLIENTS,
      users: testUsers(),
      providers: [github.provider(provider)],
      // ID tokens are RS256 unless a client says otherwise.
      signingAlgorithms: ['ES256', 'RS256'],
    });
    return { server, github };
  }

  function octocat(github: GithubServer, extra: Partial<GithubAccount> = {}): GithubAccount {
    const account = github.addAccount({
      id: 583231,
      login: 'octocat',
      name: 'The Octocat',
      emails: [{ email: 'octocat@example.com', primary: true, verified: true, visibility: 'public' }],
      ...extra,
    });
    github.signIn(account);
    return account;
  }

  /** "Continue with GitHub" on our login page, GitHub's page (Authorize or Cancel), the callback; then our consent, allowed. */
  async function signInWithGithub(
    { server }: Setup,
    params: Record<string, string>,
    decision: 'authorize' | 'cancel' = 'authorize',
    beforeCallback: () => Promise<void> = async () => {},
  ): Promise<Outcome> {
    const browser = new InjectBrowser(server.app);
    const login = await browser.get(authorizeUrl(params));
    if (!login.body.includes('<button type="submit" name="provider" value="github">Continue with GitHub</button>'))
      throw new Error(`no Continue with GitHub button: ${login.statusCode}`);
    const { action, fields } = providerForm(login.body);
    const toGithub = await browser.post(action, { ...fields, provider: 'github' });
    if (toGithub.statusCode !== 303) throw new Error(`Continue with GitHub answered ${toGithub.statusCode}: ${toGithub.body}`);
    const callback = await visitGithub(toGithub.headers.location as string, decision);
    await beforeCallback();
    let response = await browser.get(`${callback.pathname}${callback.search}`);
    if (response.statusCode === 303 && (response.headers.location as string).startsWith('/oauth2/authorize?')) {
      response = await browser.get(response.headers.location as string);
      // Consent the user gave the client before is remembered: the answer comes at once.
      if (response.statusCode === 200)
        response = await browser.post(formAction(response.body), { ...formFields(response.body), decision: 'allow' });
    }
    const location = response.headers.location as string | undefined;
    if (location === undefined || !location.startsWith(WEB_REDIRECT))
      throw new Error(`not at the client: ${response.statusCode} ${response.body}`);
    return { response, location: redirectParams(location) };
  }

  /** The code flow for client `web` with scope `openid email profile read`, through GitHub: the token response. */
  async function codeFlow(setup: Setup): Promise<{ sub: string; accessToken: string; idToken: Record<string, unknown> }> {
    const { verifier, challenge } = pkcePair();
    const { location } = await signInWithGithub(setup, codeRequest(challenge));
    if (location.code === undefined) throw new Error(`no code: ${JSON.stringify(location)}`);
    const token = await setup.server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('web', WEB_SECRET) },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code: location.code,
        redirect_uri: WEB_REDIRECT,
        code_verifier: verifier,
      }).toString(),
    });
    if (token.statusCode !== 200) throw new Error(`token: ${token.statusCode} ${token.body}`);
    const body = token.json() as { access_token: string; id_token: string };
    const sub = decodeJwt(body.access_token).sub as string;
    return { sub, accessToken: body.access_token, idToken: decodeJwt(body.id_token) };
  }

  function codeRequest(challenge: string): Record<string, string> {
    return {
      response_type: 'code',
      client_id: 'web',
      redirect_uri: WEB_REDIRECT,
      scope: 'openid email profile read',
      state: 'client-state',
      nonce: 'client-nonce',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
  }

  const denied = (description: string) => ({ error: 'access_denied', error_description: description, state: 'client-state', iss: ISSUER });

  t.test(
    'Continue with GitHub: GitHub gets only our request; the client a code, tokens for a fed_ sub, userinfo GitHub’s email',
    async (t) => {
      const setup = await start(t);
      octocat(setup.github);
      const { sub, accessToken, idToken } = await codeFlow(setup);
      t.equal(sub, federatedSubject('github', '583231'));
      t.match(sub, /^fed_/);
      t.equal(idToken.sub, sub);
      const [authorize] = setup.github.requestsTo('web', '/login/oauth/authorize');
      t.same(
        [...(authorize?.query.keys() ?? [])].sort(),
        ['client_id', 'code_challenge', 'code_challenge_method', 'redirect_uri', 'scope', 'state'],
        'nothing of the client’s request (its state, nonce, scope, redirect URI) went to GitHub',
      );
      t.equal(authorize?.query.get('client_id'), setup.github.clientId);
      t.equal(authorize?.query.get('redirect_uri'), CALLBACK);
      t.not(authorize?.query.get('state'), 'client-state');
      const userinfo = await setup.server.app.inject({
        method: 'GET',
        url: '/oauth2/userinfo',
        headers: { authorization: `Bearer ${accessToken}` },
      });
      t.equal(userinfo.statusCode, 200, userinfo.body);
      t.same(userinfo.json(), {
        sub,
        email: 'octocat@example.com',
        email_verified: true,
        name: 'The Octocat',
        preferred_username: 'octocat',
        picture: 'https://avatars.githubusercontent.com/u/583231?v=4',
      });
    },
  );

  t.test('the sub is the same at every sign-in and after a login rename; another GitHub user has another', async (t) => {
    const setup = await start(t);
    const account = octocat(setup.github);
    const first = await codeFlow(setup);
    t.equal((await codeFlow(setup)).sub, first.sub, 'signed in again');
    account.login = 'octocat-renamed';
    const renamed = await codeFlow(setup);
    t.equal(renamed.sub, first.sub, 'the login is not the identity');
    const userinfo = await setup.server.app.inject({
      method: 'GET',
      url: '/oauth2/userinfo',
      headers: { authorization: `Bearer ${renamed.accessToken}` },
    });
    t.equal(userinfo.json().preferred_username, 'octocat-renamed', 'the profile follows GitHub');
    setup.github.signIn(setup.github.addAccount({ id: 1, login: 'octocat' }));
    const other = await codeFlow(setup);
    t.not(other.sub, first.sub, 'another GitHub user (who took the login) is someone else');
    t.equal(other.sub, federatedSubject('github', '1'));
  });

  t.test('allowed_organizations: a member signs in (the case of the login does not matter), others get access_denied', async (t) => {
    const setup = await start(t, { allowed_organizations: ['Acme-Corp'] });
    const account = octocat(setup.github, {
      orgs: [
        { login: 'other', id: 7 },
        { login: 'acme-corp', id: 8 },
      ],
    });
    t.equal((await codeFlow(setup)).sub, federatedSubject('github', '583231'));
    t.equal(setup.github.requestsTo('web', '/login/oauth/authorize')[0]?.query.get('scope'), 'read:user user:email read:org');
    account.orgs = [{ login: 'other', id: 7 }];
    const { response, location } = await signInWithGithub(setup, codeRequest(pkcePair().challenge));
    t.equal(response.statusCode, 302);
    t.same(location, denied(REFUSED), 'no code; the client learns access_denied, not why');
  });

  t.test('allowed_email_domains: the primary address GitHub verified decides', async (t) => {
    const setup = await start(t, { allowed_email_domains: ['example.com'] });
    const account = octocat(setup.github);
    t.equal((await codeFlow(setup)).sub, federatedSubject('github', '583231'));
    account.emails = [
      { email: 'octocat@example.com', primary: true, verified: false, visibility: 'private' },
      { email: 'octocat@example.org', primary: false, verified: true, visibility: null },
    ];
    t.same((await signInWithGithub(setup, codeRequest(pkcePair().challenge))).location, denied(REFUSED), 'unverified at GitHub');
    account.emails = [{ email: 'octocat@example.org', primary: true, verified: true, visibility: 'public' }];
    t.same((await signInWithGithub(setup, codeRequest(pkcePair().challenge))).location, denied(REFUSED), 'another domain');
  });

  t.test('Cancel at GitHub: access_denied at the client', async (t) => {
    const setup = await start(t);
    octocat(setup.github);
    const { response, location } = await signInWithGithub(setup, codeRequest(pkcePair().challenge), 'cancel');
    t.equal(response.statusCode, 302);
    t.same(location, denied('the user cancelled the sign-in at the identity provider'));
    t.same(setup.github.requestsTo('web', '/login/oauth/access_token'), [], 'no code exchanged');
  });

  t.test('GitHub unreachable at the callback: access_denied at the client, and the server answers on', async (t) => {
    const setup = await start(t);
    octocat(setup.github);
    const { location } = await signInWithGithub(setup, codeRequest(pkcePair().challenge), 'authorize', () => setup.github.close());
    t.same(location, denied('the sign-in at the identity provider did not succeed'));
    t.equal((await setup.server.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });

  t.test('GitHub Enterprise Server: base_url, and the API under {base_url}/api/v3', async (t) => {
    const setup = await start(t, {}, { enterprise: true });
    t.equal(setup.github.apiUrl, `${setup.github.baseUrl}/api/v3`);
    octocat(setup.github);
    const { accessToken } = await codeFlow(setup);
    t.same(
      setup.github.requests.filter((r) => r.site === 'api').map((r) => r.url),
      ['/api/v3/user', '/api/v3/user/emails'],
    );
    const userinfo = await setup.server.app.inject({
      method: 'GET',
      url: '/oauth2/userinfo',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    t.equal(userinfo.json().email, 'octocat@example.com');
  });
}

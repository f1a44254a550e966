import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { rolesOf } from '../../src/identity/access-rules.js';
import { ProviderRegistry } from '../../src/identity/providers.js';
import { UserRegistry } from '../../src/users/registry.js';
import { ADMIN_API, ADMIN_SECRET, bearer, expectProblem } from '../helpers/admin.js';
import { formAction, formFields, InjectBrowser, pkcePair, redirectParams } from '../helpers/browser-flow.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { basic, buildTestServer, FORM_HEADERS, TEST_CLIENTS } from '../helpers/server.js';

/**
 * Only a person with the role admin is granted the admin API's scopes, whatever the client
 * asks: at the authorization endpoint, the password grant, refresh and token exchange; a
 * scope they may not have is dropped from the grant (RFC 6749 §3.3), never refused.
 */

const CONSOLE_REDIRECT = 'https://console.example.com/cb';
const client = (client_id: string, fields: Record<string, unknown>) => ({
  client_id,
  client_secret_hash: hashClientSecret(ADMIN_SECRET),
  ...fields,
});
const CLIENTS = [
  ...TEST_CLIENTS,
  client('console', {
    redirect_uris: [CONSOLE_REDIRECT],
    grant_types: ['authorization_code', 'password', 'refresh_token'],
    scope: 'openid admin:read admin:write',
  }),
  // Registered without scope: it may ask for what the resources offer, but never for admin scopes.
  client('open', { redirect_uris: [CONSOLE_REDIRECT], grant_types: ['authorization_code'] }),
  client('gateway', {
    grant_types: ['urn:ietf:params:oauth:grant-type:token-exchange'],
    scope: 'admin:read',
    token_exchange: { subject_audiences: [ADMIN_API], target_resources: [ADMIN_API] },
  }),
];
const PASSWORDS = { ada: 'ada-password-1', bob: 'bob-password-1' };
const users = (adaRoles: string[] = ['admin']) =>
  UserRegistry.fromEntries([
    { username: 'ada', password_hash: cheapPasswordHash(PASSWORDS.ada), roles: adaRoles },
    { username: 'bob', password_hash: cheapPasswordHash(PASSWORDS.bob) },
  ]);

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;

t.test('USERS_FILE: roles', async (t) => {
  t.same(users().get('ada')?.roles, ['admin']);
  t.same(users().get('bob')?.roles, [], 'none by default');
  t.throws(() => UserRegistry.fromEntries([{ username: 'eve', password_hash: cheapPasswordHash('x'), roles: ['root'] }]), {
    message: 'users: user "eve": roles.0: must be one of admin',
  });
});

t.test('IDENTITY_PROVIDERS_FILE: roles, each a required_claims rule on what the provider says', async (t) => {
  const entry = {
    id: 'corp',
    type: 'oidc',
    name: 'Corp',
    issuer: 'https://idp.example.com',
    client_id: 'us',
    client_secret: 'secret',
    roles: { admin: { groups: ['oauth-admins', 'root'], email_verified: 'true' } },
  };
  const provider = ProviderRegistry.fromEntries([entry]).get('corp');
  if (!provider) throw new Error('no provider');
  t.same(rolesOf(provider, { claims: { groups: ['staff', 'oauth-admins'], email_verified: 'true' } }), ['admin']);
  t.same(rolesOf(provider, { claims: { groups: 'root', email_verified: 'true' } }), ['admin'], 'a string claim');
  t.same(rolesOf(provider, { claims: { groups: ['staff'], email_verified: 'true' } }), [], 'every claim of the rule must hold');
  t.same(rolesOf(provider, { claims: { groups: ['oauth-admins'] } }), []);
  const github = ProviderRegistry.fromEntries([
    { id: 'gh', type: 'github', name: 'GitHub', client_id: 'us', client_secret: 'secret', roles: { admin: { sub: '583231' } } },
  ]).get('gh');
  t.same(rolesOf(github as never, { claims: { sub: '583231' } }), ['admin'], 'GitHub: by its stable numeric id');
  t.throws(() => ProviderRegistry.fromEntries([{ ...entry, roles: { owner: { groups: 'x' } } }]), {
    message: 'providers: provider "corp": roles: Unrecognized key: "owner"',
  });
});

t.test('the authorization endpoint', async (t) => {
  // RS256 too: ID tokens (openid) are signed with it.
  const { app } = await buildTestServer(t, { clients: CLIENTS, users: users(), signingAlgorithms: ['ES256', 'RS256'] });
  /** Signs in, allows if asked, redeems: the token response. */
  async function authorized(clientId: string, username: 'ada' | 'bob', scope: string) {
    const browser = new InjectBrowser(app);
    const { verifier, challenge } = pkcePair();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CONSOLE_REDIRECT,
      scope,
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: ADMIN_API,
    });
    const login = await browser.get(`/oauth2/authorize?${query}`);
    const signedIn = await browser.post(formAction(login.body), { ...formFields(login.body), username, password: PASSWORDS[username] });
    let answer = await browser.get(signedIn.headers.location as string);
    let consentPage = '';
    if (answer.statusCode === 200) {
      consentPage = answer.body;
      answer = await browser.post(formAction(answer.body), { ...formFields(answer.body), decision: 'allow' });
    }
    const { code } = redirectParams(answer.headers.location as string);
    const res = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic(clientId, ADMIN_SECRET) },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code as string,
        redirect_uri: CONSOLE_REDIRECT,
        code_verifier: verifier,
      }).toString(),
    });
    return { tokens: res.json() as Record<string, string>, consentPage };
  }

  t.test('an admin is granted them', async (t) => {
    const { tokens, consentPage } = await authorized('console', 'ada', 'admin:read admin:write');
    t.equal(tokens.scope, 'admin:read admin:write');
    t.match(consentPage, 'admin:write', 'the consent page names them');
    const keys = await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: bearer(tokens.access_token as string) });
    t.equal(keys.statusCode, 200, 'and may call the admin API');
  });

  t.test('a user without the role is not, whatever the client asks; nor asked to consent to them', async (t) => {
    const { tokens, consentPage } = await authorized('console', 'bob', 'openid admin:read admin:write');
    // The grant is openid alone: an ID token, and an access token for the admin API with no scope of it.
    t.equal(typeof tokens.id_token, 'string', 'the grant kept openid');
    t.equal(tokens.scope, undefined, 'RFC 6749 §3.3: the admin scopes were dropped');
    t.notOk(consentPage.includes('admin:'), 'the consent page does not offer them');
    expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: bearer(tokens.access_token as string) }), {
      status: 403,
      type: 'insufficient-scope',
      title: 'The access token lacks the scope this request needs',
      detail: 'this request needs the scope admin:read',
      scope: 'admin:read',
      headers: {},
    });
  });

  t.test('a client whose registered scope does not list them never gets them, even for an admin', async (t) => {
    const { tokens } = await authorized('open', 'ada', 'openid admin:read');
    t.equal(typeof tokens.id_token, 'string');
    t.equal(tokens.scope, undefined);
  });
});

t.test('the password grant, refresh, and a role taken away', async (t) => {
  const registry = users();
  const { app } = await buildTestServer(t, { clients: CLIENTS, users: registry });
  const token = (params: Record<string, string>, clientId = 'console') =>
    app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic(clientId, ADMIN_SECRET) },
      payload: `${new URLSearchParams(params)}&resource=${encodeURIComponent(ADMIN_API)}`,
    });
  const password = (username: 'ada' | 'bob') =>
    token({ grant_type: 'password', username, password: PASSWORDS[username], scope: 'admin:read admin:write' });
  const bob = (await password('bob')).json();
  t.same([bob.scope, bob.access_token ? claimsOf(bob.access_token).scope : 'none'], [undefined, undefined], 'bob: dropped');
  const ada = (await password('ada')).json();
  t.equal(ada.scope, 'admin:read admin:write', 'ada: granted');
  t.equal((await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: bearer(ada.access_token) })).statusCode, 200);

  const exchanged = await token(
    {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: ada.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    },
    'gateway',
  );
  t.equal(exchanged.json().scope, 'admin:read admin:write', 'token exchange: within the subject token, while the user holds the role');

  registry.replace(users([]));
  const refreshed = (await token({ grant_type: 'refresh_token', refresh_token: ada.refresh_token })).json();
  t.equal(refreshed.scope, undefined, 'refresh: the admin scopes are gone with the role');
  t.equal(claimsOf(refreshed.access_token).scope, undefined);
  const exchangedAfter = await token(
    {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: ada.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    },
    'gateway',
  );
  t.equal(exchangedAfter.json().scope, undefined, 'token exchange: gone too');
  expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: bearer(ada.access_token) }), {
    status: 401,
    type: 'unauthorized',
    title: 'An access token for the admin API is required',
    detail: 'the access token is of a user who no longer holds the role admin',
    headers: {},
  });
});

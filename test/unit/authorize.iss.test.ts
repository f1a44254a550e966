import t from 'tap';
import { StoreUnavailableError } from '../../src/errors/index.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, pkcePair, redirectParams } from '../helpers/browser-flow.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';

/**
 * RFC 9207 §2: "Authorization servers supporting this specification MUST provide their
 * issuer identifier to clients in the iss parameter of authorization responses", and §2:
 * "the iss parameter MUST be included in error responses as well". Every kind of answer the
 * authorization endpoint sends to a client's redirect URI, success and error, in each
 * response mode, carries `iss`, our issuer identifier; the metadata says so (§3). The
 * failures of a sign-in at an upstream identity provider (access_denied) are asserted with
 * `iss` in test/suites/upstream-callbacks.ts and upstream-sign-in.ts.
 */

const RESOURCE = 'https://api.example.com/';
const WEB = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read', state: 'st' };
const SPA = { response_type: 'token', client_id: 'spa', scope: 'read', state: 'st' };

t.test('RFC 9207: iss on every authorization response', async (t) => {
  const opened = await memoryStore(t);
  const { app } = await buildTestServer(t, {
    clients: AUTHORIZE_CLIENTS,
    users: testUsers(),
    resources: [{ resource: RESOURCE, scope: 'read write' }],
    store: opened,
  });
  const metadata = (await app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
  t.equal(metadata.authorization_response_iss_parameter_supported, true, 'RFC 9207 §3: the metadata says so');

  const browser = new InjectBrowser(app);
  /** The parameters of the redirect `url` answers, from the query or the fragment. */
  const answer = async (url: string, part: 'query' | 'fragment' = 'query') => {
    const res = await browser.get(url);
    t.equal(res.statusCode, 302, url);
    return redirectParams(res.headers.location as string, part);
  };
  const error = (code: string, description: string) => ({ error: code, error_description: description, state: 'st', iss: ISSUER });

  t.test('errors before anyone signs in', async (t) => {
    const cases: [string, Record<string, string>, 'query' | 'fragment'][] = [
      [authorizeUrl({ ...WEB, prompt: 'none' }), error('login_required', 'the user is not signed in'), 'query'],
      [
        authorizeUrl({ ...WEB, response_type: 'id_token' }),
        error('unsupported_response_type', 'response_type must be code or token'),
        'query',
      ],
      [
        authorizeUrl({ ...WEB, response_type: 'token' }),
        error('unauthorized_client', 'this client is not registered for response_type token'),
        'fragment',
      ],
      [authorizeUrl({ ...WEB, scope: 'admin' }), error('invalid_scope', 'scope not allowed for this client: admin'), 'query'],
      [
        authorizeUrl({ ...WEB, resource: 'https://unknown.example.com/' }),
        error('invalid_target', 'resource is not registered at this authorization server'),
        'query',
      ],
      [
        authorizeUrl({ ...WEB, prompt: 'select_account' }),
        error('invalid_request', "prompt value 'select_account' is not supported: use none, login or consent"),
        'query',
      ],
      [
        authorizeUrl({ ...WEB, request: 'eyJ' }),
        error('request_not_supported', 'request objects are not supported: send the parameters themselves'),
        'query',
      ],
      [
        authorizeUrl({ ...WEB, request_uri: 'urn:x' }),
        error('request_uri_not_supported', 'request_uri is not supported: send the parameters themselves'),
        'query',
      ],
      [authorizeUrl({ ...SPA, scope: 'nope' }), error('invalid_scope', 'scope not allowed for this client: nope'), 'fragment'],
    ];
    for (const [url, expected, part] of cases) t.same(await answer(url, part), expected, expected.error as string);
  });

  // alice signs in and denies, then allows `read`.
  const login = await browser.get(authorizeUrl(WEB));
  const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  const consent = await browser.get(afterLogin.headers.location as string);
  const denied = await browser.post(formAction(consent.body), { ...formFields(consent.body), decision: 'deny' });

  t.test('access_denied from the consent page (303 after the POST)', async (t) => {
    t.equal(denied.statusCode, 303);
    t.same(redirectParams(denied.headers.location as string), error('access_denied', 'the user denied the request'));
  });

  t.test('signed in, nothing approved yet: consent_required; interaction_required for another login_hint', async (t) => {
    t.same(
      await answer(authorizeUrl({ ...WEB, prompt: 'none' })),
      error('consent_required', 'the user has not approved this access for this client'),
    );
    t.same(
      await answer(authorizeUrl({ ...WEB, prompt: 'none', login_hint: 'bob' })),
      error('interaction_required', 'the signed-in user is not the one login_hint names'),
    );
  });

  t.test('success: the code in the query, the fragment and a form_post page; the implicit token in the fragment', async (t) => {
    const allowed = await browser.post(formAction(consent.body), { ...formFields(consent.body), decision: 'allow' });
    t.equal(allowed.statusCode, 303);
    const approvedAnswer = redirectParams(allowed.headers.location as string);
    t.same(Object.keys(approvedAnswer), ['code', 'state', 'iss']);
    t.equal(approvedAnswer.iss, ISSUER);

    const { challenge } = pkcePair();
    const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
    const query = await answer(authorizeUrl({ ...WEB, ...pkce }));
    t.same([Object.keys(query), query.iss], [['code', 'state', 'iss'], ISSUER], 'query');
    const fragment = await answer(authorizeUrl({ ...WEB, ...pkce, response_mode: 'fragment' }), 'fragment');
    t.same([Object.keys(fragment), fragment.iss], [['code', 'state', 'iss'], ISSUER], 'fragment');
    const formPost = await browser.get(authorizeUrl({ ...WEB, ...pkce, response_mode: 'form_post' }));
    t.equal(formPost.statusCode, 200);
    t.match(formPost.body, /<input type="hidden" name="code" value="[^"]+">/);
    t.match(formPost.body, `<input type="hidden" name="iss" value="${ISSUER}">`, 'form_post');

    const spaConsent = await browser.get(authorizeUrl(SPA));
    const token = await browser.post(formAction(spaConsent.body), { ...formFields(spaConsent.body), decision: 'allow' });
    const implicit = redirectParams(token.headers.location as string, 'fragment');
    t.same(Object.keys(implicit), ['access_token', 'token_type', 'expires_in', 'scope', 'state', 'iss']);
    t.equal(implicit.iss, ISSUER, 'the implicit token');
  });

  t.test('temporarily_unavailable when the store fails', async (t) => {
    opened.store.saveAuthorizationCode = async () => {
      throw new StoreUnavailableError('redis down');
    };
    t.same(
      await answer(authorizeUrl(WEB)),
      error('temporarily_unavailable', 'the authorization server is temporarily unavailable, try again later'),
    );
  });
});

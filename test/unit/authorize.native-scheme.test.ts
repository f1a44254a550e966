import t from 'tap';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, pkcePair, redirectParams } from '../helpers/browser-flow.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';

const NATIVE_REDIRECT = 'com.example.app:/oauth/callback';
const NATIVE_CLIENT = {
  client_id: 'native-app',
  redirect_uris: [NATIVE_REDIRECT],
  grant_types: ['authorization_code'],
  scope: 'read',
  token_endpoint_auth_method: 'none',
};

t.test('a native app with a private-use URI scheme (RFC 8252 §7.1) gets its code through the consent form', async (t) => {
  const { app } = await buildTestServer(t, { clients: [NATIVE_CLIENT], users: testUsers(), env: { CONSENT_TTL: '0' } }); // every flow shows the consent page
  const browser = new InjectBrowser(app);
  const { challenge } = pkcePair();
  const params = { response_type: 'code', client_id: 'native-app', state: 's1', code_challenge: challenge, code_challenge_method: 'S256' };
  const login = await browser.get(authorizeUrl(params));
  const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  const consent = await browser.get(afterLogin.headers.location as string);
  t.equal(consent.statusCode, 200);
  // The browser applies form-action to the redirect that follows the form: the app's scheme must be
  // allowed, since the opaque origin of com.example.app:/... is "null" and would allow nothing.
  t.match(consent.headers['content-security-policy'], /(^|; )form-action 'self' com\.example\.app:(;|$)/);
  t.notMatch(consent.headers['content-security-policy'], /form-action[^;]*null/);

  const approved = await browser.post(formAction(consent.body), { ...formFields(consent.body), decision: 'allow' });
  t.equal(approved.statusCode, 303);
  const location = approved.headers.location as string;
  t.ok(location.startsWith(`${NATIVE_REDIRECT}?`), location);
  t.match(redirectParams(location), { state: 's1', iss: ISSUER, code: /\S+/ });

  const formPost = await browser.get(authorizeUrl({ ...params, response_mode: 'form_post' }));
  const decided = await browser.post(formAction(formPost.body), { ...formFields(formPost.body), decision: 'allow' });
  t.equal(decided.statusCode, 200, 'form_post answers with the auto-submitting page');
  t.match(decided.headers['content-security-policy'], /(^|; )form-action 'self' com\.example\.app:(;|$)/);
});

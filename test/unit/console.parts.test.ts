import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { TokenActivity } from '../../src/console/activity.js';
import { CONSOLE_CLIENT_ID, consoleClient, consoleClientSecret } from '../../src/console/client.js';
import { fromOurOrigin } from '../../src/console/forms.js';
import { endpointsOf } from '../../src/endpoints.js';
import { Signer } from '../../src/session/signer.js';
import { verifyClientSecret } from '../../src/clients/secret.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { basic, buildTestServer, FORM_HEADERS } from '../helpers/server.js';

/** The console's parts on their own: the last hour's window, the sealed values, the built-in client, where a change may come from. */

t.test('the last hour: per minute, by grant type and by error, 60 minutes kept', async (t) => {
  let now = Date.UTC(2026, 0, 1, 10, 0, 30);
  const activity = new TokenActivity(() => now);
  const issued = (grant: 'client_credentials' | 'authorization_code') =>
    activity.emit({ event: 'token.issued', grant, clientId: 'c', sub: 's', scope: [], resource: [], jti: 'j', refreshToken: false });
  issued('client_credentials');
  issued('client_credentials');
  issued('authorization_code');
  activity.emit({ event: 'token.failed', error: 'invalid_client' });
  activity.emit({ event: 'signin.failed', channel: 'login_page', address: '203.0.113.7' });
  now += 60_000;
  issued('authorization_code');
  const window = activity.lastHour();
  t.equal(window.start, Date.UTC(2026, 0, 1, 9, 2) / 1000, 'the first of 60 minutes, the current one last');
  const zeros = (n: number) => Array<number>(n).fill(0);
  t.same(window.issued, [
    { label: 'authorization_code', counts: [...zeros(58), 1, 1], total: 2 },
    { label: 'client_credentials', counts: [...zeros(58), 2, 0], total: 2 },
  ]);
  t.same(window.refused, [{ label: 'invalid_client', counts: [...zeros(58), 1, 0], total: 1 }], 'other events are not counted');
  now += 59 * 60_000;
  t.same(
    activity.lastHour().issued,
    [{ label: 'authorization_code', counts: [...zeros(59), 1].reverse(), total: 1 }],
    'an hour on, the first minute is gone',
  );
  now += 60 * 60_000;
  issued('client_credentials');
  t.same(
    activity.lastHour().issued,
    [{ label: 'client_credentials', counts: [...zeros(59), 1], total: 1 }],
    'a slot reused drops what it held',
  );
});

t.test('sealed values: opened only with the secret, for their purpose, until they expire', async (t) => {
  const signer = new Signer('a-session-secret-of-32-characters!!');
  const sealed = signer.seal('console-session', { token: 'eyJ.secret' }, 2000);
  t.match(sealed, /^[A-Za-z0-9_-]+$/);
  t.notOk(sealed.includes('secret'));
  t.not(sealed, signer.seal('console-session', { token: 'eyJ.secret' }, 2000), 'a fresh IV each time');
  t.same(signer.open('console-session', sealed, 1999), { token: 'eyJ.secret' });
  t.equal(
    new Signer('a-session-secret-of-32-characters!!').open('console-session', sealed, 1999) !== undefined,
    true,
    'another instance, the same secret',
  );
  t.equal(signer.open('console-session', sealed, 2000), undefined, 'expired');
  t.equal(signer.open('console-sign-in', sealed, 1999), undefined, 'another purpose');
  t.equal(new Signer('another-secret-of-32-characters!!!!!').open('console-session', sealed, 1999), undefined, 'another secret');
  const altered = `${sealed.slice(0, 20)}${sealed[20] === 'A' ? 'B' : 'A'}${sealed.slice(21)}`;
  t.equal(signer.open('console-session', altered, 1999), undefined, 'altered');
  for (const junk of ['', 'x', 'not base64url!', 'A'.repeat(27)])
    t.equal(signer.open('console-session', junk, 1999), undefined, `"${junk}"`);
});

t.test('the built-in client: its secret derives from SESSION_SECRET, its id is reserved', async (t) => {
  const secret = consoleClientSecret(new Signer('a-session-secret-of-32-characters!!'));
  t.equal(secret, consoleClientSecret(new Signer('a-session-secret-of-32-characters!!')), 'every instance derives the same');
  t.not(secret, consoleClientSecret(new Signer('another-secret-of-32-characters!!!!!')));
  t.match(secret, /^[A-Za-z0-9_-]{43}$/);
  const client = consoleClient(endpointsOf('https://as.example.com/tenant'), secret, 'ES256');
  t.match(client, {
    clientId: 'admin-console',
    redirectUris: ['https://as.example.com/tenant/admin/callback'],
    scope: ['openid', 'admin:read', 'admin:write'],
    authMethod: 'client_secret_basic',
    skipConsent: true,
    idTokenSignedResponseAlg: 'ES256',
  });
  t.ok(verifyClientSecret(secret, client.secretDigest));
  t.throws(
    () =>
      ClientRegistry.fromMetadata([
        { client_id: CONSOLE_CLIENT_ID, client_secret_hash: hashClientSecret('x'), grant_types: ['client_credentials'] },
      ]),
    { message: 'clients: client "admin-console": client_id: must not be "admin-console" (the console\'s, built into the server)' },
  );
});

t.test('the token endpoint knows the console as a client (the secret derived from the test server secret)', async (t) => {
  const { app } = await buildTestServer(t);
  const secret = consoleClientSecret(new Signer('test-session-secret-0123456789abcdef'));
  const res = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic(CONSOLE_CLIENT_ID, secret) },
    payload: 'grant_type=client_credentials',
  });
  t.equal(res.statusCode, 400);
  t.same(res.json(), {
    error: 'unauthorized_client',
    error_description: 'this client is not registered for grant_type client_credentials',
  });
  const wrong = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic(CONSOLE_CLIENT_ID, 'not-the-secret') },
    payload: 'grant_type=authorization_code&code=x',
  });
  t.equal(wrong.statusCode, 401, 'a wrong secret is invalid_client');
});

t.test('where a change may come from: this origin, or a client that says nothing', async (t) => {
  const ours = 'https://as.example.com';
  t.equal(fromOurOrigin({ origin: ours, 'sec-fetch-site': 'same-origin' }, ours), true);
  t.equal(fromOurOrigin({}, ours), true, 'no browser: the CSRF token decides');
  t.equal(fromOurOrigin({ origin: 'https://evil.example' }, ours), false);
  t.equal(fromOurOrigin({ origin: 'null' }, ours), false);
  t.equal(fromOurOrigin({ origin: 'https://as.example.com:8443' }, ours), false);
  t.equal(fromOurOrigin({ 'sec-fetch-site': 'same-site' }, ours), false, 'a sibling subdomain');
  t.equal(fromOurOrigin({ origin: ours, 'sec-fetch-site': 'cross-site' }, ours), false);
});

import t from 'tap';
import { redirectUriMatches, resolveRedirectUri } from '../../src/oauth/redirect-uri.js';

/** RFC 8252 §7.3: any port for loopback IP literals over http; everything else exact (RFC 9700 §4.1.3). */
t.test('redirect URI matching', async (t) => {
  const table: [registered: string, requested: string, matches: boolean][] = [
    // Loopback IP literals: any port, or none, for the same path and query.
    ['http://127.0.0.1/callback', 'http://127.0.0.1:49152/callback', true],
    ['http://127.0.0.1/callback', 'http://127.0.0.1:1/callback', true],
    ['http://127.0.0.1/callback', 'http://127.0.0.1:65535/callback', true],
    ['http://127.0.0.1:8080/callback', 'http://127.0.0.1:51000/callback', true],
    ['http://127.0.0.1:8080/callback', 'http://127.0.0.1/callback', true],
    ['http://127.0.0.1', 'http://127.0.0.1:5000', true],
    ['http://127.0.0.1/cb?tenant=a', 'http://127.0.0.1:5000/cb?tenant=a', true],
    ['http://[::1]/callback', 'http://[::1]:61234/callback', true],
    ['http://[::1]:3000/callback', 'http://[::1]/callback', true],
    // ... but nothing else may differ.
    ['http://127.0.0.1/callback', 'http://127.0.0.1:5000/callback/', false],
    ['http://127.0.0.1/callback', 'http://127.0.0.1:5000/Callback', false],
    ['http://127.0.0.1/callback', 'http://127.0.0.1:5000/other', false],
    ['http://127.0.0.1/cb?tenant=a', 'http://127.0.0.1:5000/cb?tenant=b', false],
    ['http://127.0.0.1/cb', 'http://127.0.0.1:5000/cb?x=1', false],
    ['http://127.0.0.1/cb', 'http://127.0.0.1:5000/cb#x', false],
    ['http://127.0.0.1', 'http://127.0.0.1:5000/', false],
    ['http://127.0.0.1/cb', 'http://[::1]:5000/cb', false],
    ['http://[::1]/cb', 'http://127.0.0.1:5000/cb', false],
    ['http://[::1]/cb', 'http://[0:0:0:0:0:0:0:1]:5000/cb', false],
    // Ports that are not ports.
    ['http://127.0.0.1/cb', 'http://127.0.0.1:0/cb', false],
    ['http://127.0.0.1/cb', 'http://127.0.0.1:65536/cb', false],
    ['http://127.0.0.1/cb', 'http://127.0.0.1:08080/cb', false],
    ['http://127.0.0.1/cb', 'http://127.0.0.1:/cb', false],
    ['http://127.0.0.1/cb', 'http://127.0.0.1:80x/cb', false],
    // Userinfo is never a loopback host.
    ['http://127.0.0.1/cb', 'http://127.0.0.1:5000@evil.example/cb', false],
    ['http://127.0.0.1/cb', 'http://user@127.0.0.1:5000/cb', false],
    ['http://127.0.0.1/cb', 'http://127.0.0.1.evil.example:5000/cb', false],
    // localhost (RFC 8252 §8.3: NOT RECOMMENDED), https and other loopback addresses stay exact.
    ['http://localhost/callback', 'http://localhost:5000/callback', false],
    ['http://localhost:5000/callback', 'http://localhost:5000/callback', true],
    ['https://127.0.0.1/callback', 'https://127.0.0.1:5000/callback', false],
    ['https://127.0.0.1:5000/callback', 'https://127.0.0.1:5000/callback', true],
    ['http://127.0.0.2/callback', 'http://127.0.0.2:5000/callback', false],
    ['http://127.0.0.2:5000/callback', 'http://127.0.0.2:5000/callback', true],
    ['HTTP://127.0.0.1/callback', 'HTTP://127.0.0.1:5000/callback', false],
    // Ordinary URIs: exact string equality.
    ['https://app.example.com/cb', 'https://app.example.com:443/cb', false],
    ['https://app.example.com/cb', 'https://APP.example.com/cb', false],
    ['https://app.example.com/cb', 'https://app.example.com/cb', true],
  ];
  for (const [registered, requested, matches] of table) {
    t.equal(redirectUriMatches(registered, requested), matches, `${registered} ← ${requested}`);
  }
});

t.test('resolveRedirectUri keeps the port the request sent, for the token request to repeat', async (t) => {
  t.same(resolveRedirectUri('http://127.0.0.1:50123/cb', ['https://app.example.com/cb', 'http://127.0.0.1/cb']), {
    ok: true,
    redirectUri: 'http://127.0.0.1:50123/cb',
    sent: true,
  });
  t.same(resolveRedirectUri(undefined, ['http://127.0.0.1/cb']), { ok: true, redirectUri: 'http://127.0.0.1/cb', sent: false });
  t.same(resolveRedirectUri('http://localhost:50123/cb', ['http://localhost/cb']), {
    ok: false,
    reason: 'the redirect_uri is not registered for this client',
  });
});

import type { Test } from 'tap';
import t from 'tap';
import { AUTHORIZE_CLIENTS, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, pkcePair, redirectParams } from '../helpers/browser-flow.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

t.test('GET /oauth2/authorize: requests that must not redirect', async (t) => {
  const { app } = await buildTestServer(t, { clients: AUTHORIZE_CLIENTS });
  const refused = async (t: Test, url: string, description: string) => {
    const res = await app.inject({ url });
    t.equal(res.statusCode, 400, url);
    t.equal(res.headers.location, undefined, 'never a redirect');
    t.match(res.headers, PAGE_HEADERS);
    t.match(res.headers['content-security-policy'], /frame-ancestors 'none'/);
    t.match(res.body, `<p class="error" role="alert">${description}</p>`);
  };
  const base = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, state: 's' };

  t.test('missing, repeated or unknown client_id', async (t) => {
    await refused(t, authorizeUrl({ response_type: 'code', redirect_uri: WEB_REDIRECT }), 'client_id is missing');
    await refused(t, `${authorizeUrl(base)}&client_id=web`, 'client_id is repeated');
    await refused(t, authorizeUrl({ ...base, client_id: 'nobody' }), 'the client is not registered');
  });

  t.test('a redirect_uri that is not exactly a registered one', async (t) => {
    for (const variant of [
      'https://APP.example.com/callback',
      'https://app.example.com:443/callback',
      'https://app.example.com/callback/',
      'https://app.example.com/callback?extra=1',
      'https://app.example.com/Callback',
      'http://app.example.com/callback',
      'https://app.example.com/other',
      'https://evil.example.com/callback',
    ]) {
      await refused(t, authorizeUrl({ ...base, redirect_uri: variant }), 'the redirect_uri is not registered for this client');
    }
  });

  t.test('redirect_uri omitted while several are registered, or repeated', async (t) => {
    const { redirect_uri: _, ...withoutRedirect } = base;
    await refused(t, authorizeUrl(withoutRedirect), 'redirect_uri is required: this client registered several');
    await refused(t, `${authorizeUrl(base)}&redirect_uri=${encodeURIComponent(WEB_REDIRECT)}`, 'redirect_uri is repeated');
  });

  t.test('the error page escapes what it shows', async (t) => {
    const res = await app.inject({ url: authorizeUrl({ ...base, client_id: '<script>' }) });
    t.notMatch(res.body, '<script>');
  });
});

t.test('GET /oauth2/authorize: errors redirect to the client with state and iss', async (t) => {
  const { app } = await buildTestServer(t, { clients: AUTHORIZE_CLIENTS });
  const base = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, state: 'a b&c=d/é' };
  const expectRedirectError = async (
    t: Test,
    url: string,
    error: string,
    description: string,
    part: 'query' | 'fragment' = 'query',
    state: string | null = base.state,
  ) => {
    const res = await app.inject({ url });
    t.equal(res.statusCode, 302, url);
    t.equal(res.headers['cache-control'], 'no-store');
    const location = res.headers.location as string;
    t.ok(
      location.startsWith(part === 'query' ? `${WEB_REDIRECT}?` : `${WEB_REDIRECT}#`) || location.startsWith('https://spa.example.com/cb#'),
      location,
    );
    t.same(redirectParams(location, part), { error, error_description: description, ...(state !== null ? { state } : {}), iss: ISSUER });
  };

  t.test('invalid_request: missing response_type, repeated parameter, bad response_mode', async (t) => {
    const { response_type: _, ...noType } = base;
    await expectRedirectError(t, authorizeUrl(noType), 'invalid_request', 'response_type is required');
    await expectRedirectError(t, `${authorizeUrl(base)}&scope=read&scope=write`, 'invalid_request', "parameter 'scope' is repeated");
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, response_mode: 'jwt' }),
      'invalid_request',
      'response_mode must be query, fragment or form_post',
    );
  });

  t.test('a repeated state is not echoed', async (t) => {
    await expectRedirectError(t, `${authorizeUrl(base)}&state=again`, 'invalid_request', "parameter 'state' is repeated", 'query', null);
  });

  t.test('unsupported_response_type and unauthorized_client', async (t) => {
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, response_type: 'id_token' }),
      'unsupported_response_type',
      'response_type must be code or token',
    );
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, response_type: 'token' }),
      'unauthorized_client',
      'this client is not registered for response_type token',
      'fragment',
    );
  });

  t.test('invalid_scope: outside the client scope, or bad syntax', async (t) => {
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, scope: 'read admin' }),
      'invalid_scope',
      'scope not allowed for this client: admin',
    );
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, scope: 'read\\write' }),
      'invalid_scope',
      'scope is not a space-separated list of scope tokens (RFC 6749 section 3.3)',
    );
  });

  t.test('PKCE: S256 only, well-formed, required for public clients', async (t) => {
    const { challenge } = pkcePair();
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, code_challenge: challenge, code_challenge_method: 'plain' }),
      'invalid_request',
      'code_challenge_method must be S256',
    );
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, code_challenge: challenge }),
      'invalid_request',
      'code_challenge_method must be S256',
    );
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, code_challenge_method: 'S256' }),
      'invalid_request',
      'code_challenge is required with code_challenge_method',
    );
    for (const bad of ['short', 'x'.repeat(129), `${'a'.repeat(42)}!`]) {
      await expectRedirectError(
        t,
        authorizeUrl({ ...base, code_challenge: bad, code_challenge_method: 'S256' }),
        'invalid_request',
        'code_challenge must be 43-128 unreserved characters (RFC 7636 section 4.2)',
      );
    }
    const res = await app.inject({ url: authorizeUrl({ response_type: 'code', client_id: 'spa', state: 'x' }) });
    t.equal(res.statusCode, 302);
    t.same(redirectParams(res.headers.location as string), {
      error: 'invalid_request',
      error_description: 'PKCE is required for this client: send code_challenge with code_challenge_method=S256',
      state: 'x',
      iss: ISSUER,
    });
  });

  t.test('errors follow the response mode', async (t) => {
    await expectRedirectError(
      t,
      authorizeUrl({ ...base, scope: 'nope', response_mode: 'fragment' }),
      'invalid_scope',
      'scope not allowed for this client: nope',
      'fragment',
    );
    const fragmentDefault = await buildTestServer(t, { clients: AUTHORIZE_CLIENTS, env: { AUTHORIZE_CODE_RESPONSE_MODE: 'fragment' } });
    const res = await fragmentDefault.app.inject({ url: authorizeUrl({ ...base, scope: 'nope' }) });
    t.match(res.headers.location, `${WEB_REDIRECT}#error=invalid_scope`);
    const implicit = await app.inject({ url: authorizeUrl({ response_type: 'token', client_id: 'spa', scope: 'nope', state: 's' }) });
    t.match(implicit.headers.location, 'https://spa.example.com/cb#error=invalid_scope', 'token errors go in the fragment');
    const query = await app.inject({ url: authorizeUrl({ response_type: 'token', client_id: 'spa', response_mode: 'query', state: 's' }) });
    t.same(redirectParams(query.headers.location as string, 'fragment'), {
      error: 'invalid_request',
      error_description: 'response_mode=query is not allowed with response_type=token',
      state: 's',
      iss: ISSUER,
    });
    const formPost = await app.inject({ url: authorizeUrl({ ...base, scope: 'nope', response_mode: 'form_post' }) });
    t.equal(formPost.statusCode, 200);
    t.match(formPost.body, `<form method="post" action="${WEB_REDIRECT}">`);
    t.match(formPost.body, '<input type="hidden" name="error" value="invalid_scope">');
    t.match(formPost.body, `<input type="hidden" name="iss" value="${ISSUER}">`);
    t.match(formPost.headers['content-security-policy'], /script-src 'sha256-[A-Za-z0-9+/=]+'/);
    t.match(formPost.headers['content-security-policy'], "form-action 'self' https://app.example.com");
  });

  t.test('an existing query on the registered redirect URI is kept', async (t) => {
    const res = await app.inject({ url: authorizeUrl({ ...base, redirect_uri: 'https://app.example.com/other?tenant=a', scope: 'nope' }) });
    t.match(res.headers.location, /^https:\/\/app\.example\.com\/other\?tenant=a&error=invalid_scope&/);
  });

  t.test('redirect_uri may be omitted when exactly one is registered', async (t) => {
    const res = await app.inject({ url: authorizeUrl({ response_type: 'code', client_id: 'single', scope: 'nope' }) });
    t.match(res.headers.location, 'https://single.example.com/cb?error=invalid_scope');
  });
});

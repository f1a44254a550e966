import type { Test } from 'tap';
import { formAction, formFields, type InjectBrowser, redirectParams } from '../helpers/browser-flow.js';
import { oidcServer, signedInBrowser, tamperedJwt } from '../helpers/oidc-fixtures.js';
import { SESSION_COOKIE, type TestServer } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * OpenID Connect RP-Initiated Logout 1.0 at /oauth2/logout: id_token_hint (ours, even
 * expired) or client_id names the client, post_logout_redirect_uri must be one it registered,
 * state comes back; GET or a form POST from the client; the user confirms. On a store (run
 * on memory and on Redis).
 */

const SIGNED_OUT = 'https://app.example.com/signed-out';

function logoutUrl(params: Record<string, string>): string {
  return `/oauth2/logout?${new URLSearchParams(params).toString()}`;
}

export function oidcLogoutSuite(t: Test, openStore: OpenStore): void {
  /** alice signed in on a server with a fresh store (see signedInBrowser). */
  const signedIn = async (t: Test): Promise<{ server: TestServer; browser: InjectBrowser; idToken: string }> => {
    // A day-long session, so the ID token (an hour) expires while the user is still signed in.
    const server = await oidcServer(t, { store: await openStore(t), env: { SESSION_TTL: '86400' } });
    return { server, ...(await signedInBrowser(server)) };
  };

  t.test('id_token_hint names the client: the user confirms, then goes to its post_logout_redirect_uri with state', async (t) => {
    const { server, browser, idToken } = await signedIn(t);
    // An expired ID token still names the session (§2): three hours later.
    await server.advance(3 * 3600);
    const page = await browser.get(
      logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'bye-1', logout_hint: 'alice' }),
    );
    t.equal(page.statusCode, 200, page.body);
    t.match(page.body, 'Example &#60;Web&#62; App');
    const out = await browser.post(formAction(page.body), formFields(page.body));
    t.equal(out.statusCode, 303);
    t.same(
      [
        new URL(out.headers.location as string).origin + new URL(out.headers.location as string).pathname,
        redirectParams(out.headers.location as string),
      ],
      [SIGNED_OUT, { state: 'bye-1' }],
    );
    t.equal(browser.cookie(SESSION_COOKIE), undefined, 'the session cookie is gone (set to expire at once)');
  });

  t.test('a client may also send the request as a form POST (RP-Initiated Logout §2): the same confirmation page', async (t) => {
    const { browser, idToken } = await signedIn(t);
    const page = await browser.post('/oauth2/logout', { id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT });
    t.equal(page.statusCode, 200);
    t.ok(formFields(page.body).csrf_token, 'a confirmation form, not a sign-out');
    t.notOk(browser.cookie(SESSION_COOKIE) === '', 'still signed in until the user confirms');
  });

  t.test('refused: a hint we did not sign, client_id not the hint’s audience, an unregistered post_logout_redirect_uri', async (t) => {
    const { browser, idToken } = await signedIn(t);
    const tampered = tamperedJwt(idToken);
    for (const [params, message] of [
      [{ id_token_hint: tampered }, 'id_token_hint is not an ID token this server issued'],
      [{ id_token_hint: idToken, client_id: 'spa' }, 'client_id does not match the aud of id_token_hint'],
      [
        { id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example/' },
        'post_logout_redirect_uri is not registered for this client',
      ],
      [{ post_logout_redirect_uri: SIGNED_OUT }, 'post_logout_redirect_uri needs id_token_hint or client_id'],
    ] as const) {
      const res = await browser.get(logoutUrl(params));
      t.equal(res.statusCode, 400, message);
      t.equal(res.headers.location, undefined, 'never a redirect');
      t.match(res.body, message);
    }
  });
}

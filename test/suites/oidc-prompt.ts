import type { Test } from 'tap';
import { WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, redirectParams } from '../helpers/browser-flow.js';
import { codeFlow, ES256_REDIRECT, oidcServer, signedInBrowser, tamperedJwt, verifiedIdToken } from '../helpers/oidc-fixtures.js';
import type { TestServer } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * The prompt and session rules of OpenID Connect Core §3.1.2.1 and §3.1.2.6 at the
 * authorization endpoint, on a store (run on memory and on Redis): prompt=none's three
 * errors, id_token_hint, login_hint, max_age and default_max_age, and the request object
 * parameters we do not support.
 */

const REQUEST = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'openid read', state: 'st' };

function errorAtClient(location: string | undefined): Record<string, string> {
  return redirectParams(location as string);
}

/** The ID token of a code flow in `browser`'s session (consent remembered). */
async function codeFlowWith(server: TestServer, browser: InjectBrowser): Promise<{ id_token: string }> {
  const { body } = await codeFlow(server, { scope: 'openid read' }, { browser });
  return body as { id_token: string };
}

export function oidcPromptSuite(t: Test, openStore: OpenStore): void {
  /** A server on a fresh store, and alice signed in there (see signedInBrowser). */
  const signedIn = async (t: Test) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    return { server, ...(await signedInBrowser(server)) };
  };

  t.test('prompt=none: login_required without a session, a code with one', async (t) => {
    const { server, browser } = await signedIn(t);
    const stranger = new InjectBrowser(server.app);
    const res = await stranger.get(authorizeUrl({ ...REQUEST, prompt: 'none' }));
    t.equal(res.statusCode, 302);
    t.same(errorAtClient(res.headers.location), {
      error: 'login_required',
      error_description: 'the user is not signed in',
      state: 'st',
      iss: 'https://as.example.com',
    });
    const again = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none' }));
    t.ok(errorAtClient(again.headers.location).code, 'signed in, consent remembered: a code');
  });

  t.test('id_token_hint: ours and for this client; for another user than the session, login_required with prompt=none', async (t) => {
    const { server, browser, idToken } = await signedIn(t);
    const hinted = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none', id_token_hint: idToken }));
    t.ok(errorAtClient(hinted.headers.location).code, 'the hint names the signed-in user: a code');

    // bob signs in in another browser and gets his own ID token; alice's browser with bob's hint.
    const bobBrowser = new InjectBrowser(server.app);
    const login = await bobBrowser.get(authorizeUrl(REQUEST));
    const afterLogin = await bobBrowser.post(formAction(login.body), {
      ...formFields(login.body),
      username: 'bob',
      password: 'bob-password-1',
    });
    const consent = await bobBrowser.get(afterLogin.headers.location as string);
    const approved = await bobBrowser.post(formAction(consent.body), { ...formFields(consent.body), decision: 'allow' });
    t.ok(errorAtClient(approved.headers.location).code);
    const bobIdToken = (await codeFlowWith(server, bobBrowser)).id_token;
    const other = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none', id_token_hint: bobIdToken }));
    t.same(errorAtClient(other.headers.location), {
      error: 'login_required',
      error_description: 'the signed-in user is not the one id_token_hint names',
      state: 'st',
      iss: 'https://as.example.com',
    });
    const withoutNone = await browser.get(authorizeUrl({ ...REQUEST, id_token_hint: bobIdToken }));
    t.equal(withoutNone.statusCode, 200, 'without prompt=none: the login page, to sign in as the hinted user');
    t.match(withoutNone.body, 'name="password"');

    const tampered = tamperedJwt(idToken);
    for (const [hint, why] of [
      [tampered, 'a tampered ID token'],
      [idToken, 'an ID token of another client'],
    ] as const) {
      const request = why.includes('another client') ? { ...REQUEST, client_id: 'es-client', redirect_uri: ES256_REDIRECT } : REQUEST;
      const res = await browser.get(authorizeUrl({ ...request, id_token_hint: hint }));
      t.same(
        errorAtClient(res.headers.location),
        {
          error: 'invalid_request',
          error_description: 'id_token_hint is not an ID token this server issued to this client',
          state: 'st',
          iss: 'https://as.example.com',
        },
        why,
      );
    }
  });

  t.test('login_hint fills in the username; with prompt=none and another signed-in user, interaction_required', async (t) => {
    const { server, browser } = await signedIn(t);
    const fresh = new InjectBrowser(server.app);
    const page = await fresh.get(authorizeUrl({ ...REQUEST, login_hint: 'alice@example.com' }));
    t.match(
      page.body,
      'name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="alice@example.com"',
    );
    for (const hint of ['alice', 'user-alice', 'ALICE@example.com']) {
      const same = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none', login_hint: hint }));
      t.ok(errorAtClient(same.headers.location).code, `${hint} names the signed-in user`);
    }
    const someoneElse = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none', login_hint: 'bob' }));
    t.same(errorAtClient(someoneElse.headers.location), {
      error: 'interaction_required',
      error_description: 'the signed-in user is not the one login_hint names',
      state: 'st',
      iss: 'https://as.example.com',
    });
  });

  t.test('max_age forces a fresh sign-in; the ID token says when (auth_time); default_max_age does the same for its client', async (t) => {
    const { server, browser } = await signedIn(t);
    await server.advance(400);
    const stale = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none', max_age: '300' }));
    t.equal(errorAtClient(stale.headers.location).error, 'login_required');
    const { body } = await codeFlow(server, { scope: 'openid read', max_age: '300' }, { browser });
    const { claims } = await verifiedIdToken(server, body.id_token as string);
    t.equal(claims.auth_time, Math.floor(server.clock.now / 1000), 'signed in again just now');

    // es-client registered default_max_age 300: the same without max_age in the request.
    const es = { ...REQUEST, client_id: 'es-client', redirect_uri: ES256_REDIRECT };
    await server.advance(400);
    const defaulted = await browser.get(authorizeUrl({ ...es, prompt: 'none' }));
    t.equal(errorAtClient(defaulted.headers.location).error, 'login_required', 'default_max_age applies');
  });

  t.test('request objects are not supported: request_not_supported, request_uri_not_supported (Core §6)', async (t) => {
    const { server } = await signedIn(t);
    const browser = new InjectBrowser(server.app);
    for (const [name, error, description] of [
      ['request', 'request_not_supported', 'request objects are not supported: send the parameters themselves'],
      ['request_uri', 'request_uri_not_supported', 'request_uri is not supported: send the parameters themselves'],
    ] as const) {
      const res = await browser.get(authorizeUrl({ ...REQUEST, [name]: 'eyJhbGciOiJub25lIn0.e30.' }));
      t.equal(res.statusCode, 302);
      t.same(errorAtClient(res.headers.location), { error, error_description: description, state: 'st', iss: 'https://as.example.com' });
    }
  });
}

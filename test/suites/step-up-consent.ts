import { decodeJwt } from 'jose';
import type { Test } from 'tap';
import { AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';
import { API_A, API_B, BOB, RESOURCES } from './remembered-consent.js';

/**
 * Step-up (the MCP authorization spec's "Scope Challenge Handling"): a client that comes back
 * for more scope than its user approved, for the same audiences, gets a consent page for the
 * new scopes only, the approved ones shown as already shared; once allowed, its code carries
 * the union, limited to what the client and the resources allow, and the remembered consent
 * becomes the union. The same on every store.
 */

const CLIENT = '<strong>Example &#60;Web&#62; App</strong>';

/** The exact markup of the consent page's lead, its list of asked scopes, and its list of shared ones. */
const lead = (more: boolean) => `<p>${CLIENT} asks for ${more ? 'more ' : ''}access to your account</p>`;
const asked = (scopes: string[], more = true) =>
  `<p>with these ${more ? 'new ' : ''}permissions:</p>\n<ul>${scopes.map((s) => `<li><code>${s}</code></li>`).join('')}</ul>`;
const shared = (scopes: string[]) =>
  `<p class="muted">Already shared with ${CLIENT}:</p>\n<ul class="shared muted">${scopes.map((s) => `<li><code>${s}</code></li>`).join('')}</ul>`;

async function setup(t: Test, open: OpenStore) {
  const opened = await open(t);
  const server = await buildTestServer(t, { clients: AUTHORIZE_CLIENTS, users: testUsers(), resources: RESOURCES, store: opened });
  const browser = new InjectBrowser(server.app);
  const web = new TokenClient(server.app, 'web', WEB_SECRET);
  const request = (scope: string, extra: Record<string, string> = {}) => {
    const { verifier, challenge } = pkcePair();
    const params = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope, state: 'st' };
    return { params: { ...params, code_challenge: challenge, code_challenge_method: 'S256', ...extra }, verifier };
  };
  /** The token response for the code at the end of `res` (a redirect to the client). */
  const redeem = async (res: { headers: Record<string, unknown> }, verifier: string, resources: string[] = []) => {
    const code = redirectParams(res.headers.location as string).code as string;
    const tokens = await web.token(
      { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, code_verifier: verifier },
      resources,
    );
    t.equal(tokens.statusCode, 200, 'the code redeems');
    return tokens.json() as Record<string, string>;
  };
  /** bob signs in and allows `scope` at `resources`: the token response. */
  const firstConsent = async (scope: string, resources: string[]) => {
    const { params, verifier } = request(scope);
    return redeem(await signInAndDecide(browser, params, BOB, 'allow', resources), verifier, resources);
  };
  /** Decides on the consent page `page`. */
  const decide = (page: { body: string }, decision: 'allow' | 'deny') =>
    browser.post(formAction(page.body), { ...formFields(page.body), decision });
  return { ...server, store: opened.store, browser, request, redeem, firstConsent, decide };
}

export function stepUpConsentSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`step-up: more scope for the same audience (${name})`, async (t) => {
    t.test('read, then read write: only write is asked, read is already shared; the token carries both', async (t) => {
      const { browser, request, redeem, firstConsent, decide, store } = await setup(t, open);
      t.equal((await firstConsent('read', [API_A])).scope, 'read');
      const { params, verifier } = request('read write');
      const none = await browser.get(authorizeUrl({ ...params, prompt: 'none' }, [API_A]));
      t.same(redirectParams(none.headers.location as string), {
        error: 'consent_required',
        error_description: 'the user has not approved this access for this client',
        state: 'st',
        iss: ISSUER,
      });
      const page = await browser.get(authorizeUrl(params, [API_A]));
      t.equal(page.statusCode, 200);
      t.match(page.body, '<h1>Allow access?</h1>');
      t.match(page.body, lead(true));
      t.match(page.body, asked(['write']), 'only the new scope is asked');
      t.match(page.body, shared(['read']), 'the approved one is shown as already shared');
      const tokens = await redeem(await decide(page, 'allow'), verifier, [API_A]);
      t.same(Object.keys(tokens).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
      t.equal(tokens.scope, 'read write');
      t.match(decodeJwt(tokens.access_token as string), { sub: 'bob', aud: API_A, scope: 'read write' });
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['read', 'write'], audiences: [API_A] }, 'remembered: the union');
      const again = await browser.get(authorizeUrl({ ...request('read write').params, prompt: 'none' }, [API_A]));
      t.ok(redirectParams(again.headers.location as string).code, 'no page the next time');
    });

    t.test('a client that asks only for the challenged scope keeps what it had: the union', async (t) => {
      const { browser, request, redeem, firstConsent, decide, store } = await setup(t, open);
      await firstConsent('read', [API_A]);
      const { params, verifier } = request('write');
      const page = await browser.get(authorizeUrl(params, [API_A]));
      t.match(page.body, asked(['write']));
      t.match(page.body, shared(['read']));
      const tokens = await redeem(await decide(page, 'allow'), verifier, [API_A]);
      t.equal(tokens.scope, 'read write', 'the remembered scope and the requested one');
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['read', 'write'], audiences: [API_A] });
      const narrow = request('read');
      const covered = await browser.get(authorizeUrl(narrow.params, [API_A]));
      t.equal(covered.statusCode, 302, 'a request for no more than approved: no page');
      t.equal((await redeem(covered, narrow.verifier, [API_A])).scope, 'read', 'and only what it asks for');
    });

    t.test('the union is limited to what the client and the resource allow; identity scopes only when asked', async (t) => {
      const { browser, request, redeem, decide, store } = await setup(t, open);
      await signInAndDecide(browser, request('read').params, BOB, 'deny', [API_A]);
      // Approved before: write; admin (the client may no longer ask for it); email (an identity scope).
      await store.consents.rememberConsent('bob', 'web', { scope: ['write', 'admin', 'email'], audiences: [API_A] }, 600);
      const { params, verifier } = request('read');
      const page = await browser.get(authorizeUrl(params, [API_A]));
      t.match(page.body, asked(['read']));
      t.match(page.body, shared(['write']), 'neither admin nor email');
      t.equal((await redeem(await decide(page, 'allow'), verifier, [API_A])).scope, 'write read');
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['write', 'admin', 'email', 'read'], audiences: [API_A] });
    });

    t.test('another audience is a new consent, not a step-up: everything asked, the consent replaced', async (t) => {
      const { browser, request, redeem, firstConsent, decide, store } = await setup(t, open);
      await firstConsent('read write', [API_A]);
      const { params, verifier } = request('read');
      const page = await browser.get(authorizeUrl(params, [API_B]));
      t.match(page.body, lead(false));
      t.match(page.body, asked(['read'], false));
      t.notMatch(page.body, 'Already shared');
      const tokens = await redeem(await decide(page, 'allow'), verifier, [API_B]);
      t.match(decodeJwt(tokens.access_token as string), { aud: API_B, scope: 'read' });
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['read'], audiences: [API_B] });
    });

    t.test('Deny on a step-up: access_denied, the remembered consent unchanged', async (t) => {
      const { browser, request, firstConsent, decide, store } = await setup(t, open);
      await firstConsent('read', [API_A]);
      const page = await browser.get(authorizeUrl(request('read write').params, [API_A]));
      const denied = await decide(page, 'deny');
      t.same(redirectParams(denied.headers.location as string), {
        error: 'access_denied',
        error_description: 'the user denied the request',
        state: 'st',
        iss: ISSUER,
      });
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['read'], audiences: [API_A] });
    });

    t.test('prompt=consent asks for everything again: no already shared, no union', async (t) => {
      const { browser, request, redeem, firstConsent, decide, store } = await setup(t, open);
      await firstConsent('read', [API_A]);
      const { params, verifier } = request('write', { prompt: 'consent' });
      const page = await browser.get(authorizeUrl(params, [API_A]));
      t.match(page.body, asked(['write'], false));
      t.notMatch(page.body, 'Already shared');
      t.equal((await redeem(await decide(page, 'allow'), verifier, [API_A])).scope, 'write');
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['write'], audiences: [API_A] });
    });
  });
}

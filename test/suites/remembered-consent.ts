import type { Test } from 'tap';
import { AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, InjectBrowser, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * Remembered consent covers a client, its scopes and the audiences of its tokens (the
 * resources requested, or ACCESS_TOKEN_AUDIENCE when none). The same on every store.
 */

const API_A = 'https://api-a.example.com/';
const API_B = 'https://api-b.example.com/';
const RESOURCES = [
  { resource: API_A, scope: 'read write' },
  { resource: API_B, scope: 'read' },
];
const BOB = { username: 'bob', password: 'bob-password-1' };
const READ = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read', state: 'st' };

const consentRequired = {
  error: 'consent_required',
  error_description: 'the user has not approved this access for this client',
  state: 'st',
  iss: ISSUER,
};

async function setup(t: Test, open: OpenStore, env: Record<string, string> = {}) {
  const opened = await open(t);
  const server = await buildTestServer(t, { clients: AUTHORIZE_CLIENTS, users: testUsers(), resources: RESOURCES, store: opened, env });
  const browser = new InjectBrowser(server.app);
  /** Where a signed-in browser's request ends: the code, the consent page, or an error at the client. */
  const outcome = async (params: Record<string, string>, resources: string[] = []) => {
    const res = await browser.get(authorizeUrl(params, resources));
    if (res.statusCode === 200 && res.body.includes('<h1>Allow access?</h1>')) return 'consent page';
    if (res.statusCode !== 302) return `status ${res.statusCode}`;
    const query = redirectParams(res.headers.location as string);
    return query.code !== undefined ? 'code' : query;
  };
  return { ...server, browser, outcome };
}

export function rememberedConsentSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`remembered consent covers the audience (${name})`, async (t) => {
    t.test('consent for one resource does not cover a request without one (the default audience), nor another resource', async (t) => {
      const { browser, outcome, store } = await setup(t, open);
      t.equal((await signInAndDecide(browser, READ, BOB, 'allow', [API_A])).statusCode, 303, 'bob allows read at api-a only');
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['read'], audiences: [API_A] });
      t.equal(await outcome({ ...READ, prompt: 'none' }, [API_A]), 'code', 'what he allowed: at once');
      t.same(await outcome({ ...READ, prompt: 'none' }), consentRequired, 'no resource: the default audience, never approved');
      t.equal(await outcome(READ), 'consent page');
      t.same(await outcome({ ...READ, prompt: 'none' }, [API_B]), consentRequired);
      t.same(await outcome({ ...READ, prompt: 'none' }, [API_A, API_B]), consentRequired);
    });

    t.test('consent without a resource is remembered for ACCESS_TOKEN_AUDIENCE, and covers only that', async (t) => {
      const { browser, outcome, store } = await setup(t, open, { ACCESS_TOKEN_AUDIENCE: 'https://tokens.example.com' });
      t.equal((await signInAndDecide(browser, READ, BOB)).statusCode, 303);
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['read'], audiences: ['https://tokens.example.com'] });
      t.equal(await outcome({ ...READ, prompt: 'none' }), 'code');
      t.same(await outcome({ ...READ, prompt: 'none' }, [API_A]), consentRequired);
    });

    t.test('a consent remembered for an earlier ACCESS_TOKEN_AUDIENCE does not cover the new one', async (t) => {
      const { browser, outcome, store } = await setup(t, open, { ACCESS_TOKEN_AUDIENCE: 'https://new.example.com' });
      await signInAndDecide(browser, READ, BOB, 'deny');
      await store.consents.rememberConsent('bob', 'web', { scope: ['read'], audiences: ['https://old.example.com'] }, 600);
      t.same(await outcome({ ...READ, prompt: 'none' }), consentRequired);
    });

    t.test('when ACCESS_TOKEN_AUDIENCE is a registered resource, consent to it covers requests without a resource', async (t) => {
      const { browser, outcome } = await setup(t, open, { ACCESS_TOKEN_AUDIENCE: API_A });
      await signInAndDecide(browser, READ, BOB, 'allow', [API_A]);
      t.equal(await outcome({ ...READ, prompt: 'none' }), 'code', 'the same audience: nothing new to approve');
    });
  });
}

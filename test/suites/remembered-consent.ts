import type { Test } from 'tap';
import { revokeGrantsOf } from '../../src/grants/administration.js';
import { AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

/**
 * Remembered consent covers a client, its scopes and the audiences of its tokens (the
 * resources requested, or ACCESS_TOKEN_AUDIENCE when none), and `grants revoke --client`
 * forgets it for every user. The same on every store.
 */

/** Two resources, one offering more than the other, and the user who consents (shared with step-up-consent.ts). */
export const API_A = 'https://api-a.example.com/';
export const API_B = 'https://api-b.example.com/';
export const RESOURCES = [
  { resource: API_A, scope: 'read write' },
  { resource: API_B, scope: 'read' },
];
export const BOB = { username: 'bob', password: 'bob-password-1' };
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

  t.test(`revoking a client's grants forgets every user's consent to it (${name})`, async (t) => {
    t.test("a user whose grant was already revoked at /oauth2/revoke is asked again; another client's consent stays", async (t) => {
      const { app, browser, outcome, store, clock } = await setup(t, open);
      const { verifier, challenge } = pkcePair();
      const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
      const approved = await signInAndDecide(browser, { ...READ, ...pkce }, BOB);
      const code = redirectParams(approved.headers.location as string).code as string;
      const web = new TokenClient(app, 'web', WEB_SECRET);
      const tokens = (
        await web.token({ grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, code_verifier: verifier })
      ).json();
      t.equal((await web.revoke(tokens.refresh_token as string)).statusCode, 200, "bob's only grant revoked by the client");
      await store.consents.rememberConsent('bob', 'single', { scope: ['read'], audiences: [ISSUER] }, 600);
      t.same(await store.consents.findConsent('bob', 'web'), { scope: ['read'], audiences: [ISSUER] }, 'consent outlives the grant');

      const deps = {
        index: store.grantIndex,
        revocation: store,
        consents: store.consents,
        revocationMarkSeconds: 3600,
        clock: () => clock.now,
      };
      t.same(await revokeGrantsOf({ clientId: 'web' }, deps), [], 'no live grant left to revoke');
      t.same(await outcome({ ...READ, prompt: 'none' }), consentRequired, 'consent forgotten all the same');
      t.equal(await outcome(READ), 'consent page');
      t.same(await store.consents.findConsent('bob', 'single'), { scope: ['read'], audiences: [ISSUER] }, 'another client keeps it');
    });
  });
}

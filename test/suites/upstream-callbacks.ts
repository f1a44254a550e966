import type { Test } from 'tap';
import { en } from '../../src/pages/messages/en.js';
import { authorizeUrl } from '../helpers/browser-flow.js';
import { ISSUER, SESSION_COOKIE } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import type { BrowserResponse, FlowBrowser } from '../helpers/upstream-browser.js';
import {
  ACCOUNTS,
  clientAnswer,
  codeRequest,
  errorAtClient,
  federatedCode,
  federation,
  pageTitle,
  signInAtUpstream,
} from '../helpers/upstream-fixtures.js';

/**
 * The way back from an upstream provider (node-oidc-provider), on a store (memory and
 * Redis): a user who cancels or an upstream error is access_denied at the client in our
 * words; a callback that matches no sign-in of this browser at this provider (a wrong,
 * replayed, expired or concurrent state, another browser, another provider) is a 400 page
 * and issues nothing.
 */

/** Asserts the page of a refused callback, and that it signed nobody in. */
function refusedIn(t: Test) {
  return (name: string, res: BrowserResponse, browser: FlowBrowser, signedInBefore = false) => {
    t.equal(res.status, 400, name);
    t.equal(pageTitle(res), en.errorTitles.upstream_callback, name);
    t.match(res.body, '<code>invalid_request</code>');
    if (!signedInBefore) t.equal(browser.cookie(ISSUER, SESSION_COOKIE), undefined, `${name}: nobody signed in`);
  };
}

export function upstreamCallbackSuite(t: Test, openStore: OpenStore): void {
  t.test('the user cancels at the upstream: access_denied in our words, not the upstream text', async (t) => {
    const f = await federation(t, { store: await openStore(t) });
    for (const cancel of ['login', 'consent'] as const) {
      const { location } = await federatedCode(f, { login: ACCOUNTS.ada.sub, cancel });
      t.same(clientAnswer(location), errorAtClient('access_denied', 'the user cancelled the sign-in at the identity provider'));
    }
    // An error the upstream sends (its own words, even markup): access_denied, never its text.
    const { browser, callback } = await signInAtUpstream(f, ACCOUNTS.ada.sub);
    const failed = new URL(callback);
    failed.searchParams.delete('code');
    failed.searchParams.set('error', 'temporarily_unavailable');
    failed.searchParams.set('error_description', '<b>our database is on fire</b>');
    const res = await browser.get(failed);
    t.equal(res.status, 302);
    t.same(clientAnswer(res.location as URL), errorAtClient('access_denied', 'the sign-in at the identity provider did not succeed'));
    t.equal(f.upstream.requestsTo('/token').length, 0);
  });

  t.test('a callback with a wrong state, replayed, from another browser or for another provider: a 400 page, nothing issued', async (t) => {
    const f = await federation(t, {
      store: await openStore(t),
      providers: (u) => [u.providerEntry('corp'), u.providerEntry('other')],
    });
    const started = () => signInAtUpstream(f, ACCOUNTS.ada.sub);
    const refused = refusedIn(t);
    const { browser, callback } = await started();
    const wrongState = new URL(callback);
    wrongState.searchParams.set('state', 'another-state-0123456789');
    await refused('a wrong state', await browser.get(wrongState), browser);
    const noState = new URL(callback);
    noState.searchParams.delete('state');
    await refused('no state', await browser.get(noState), browser);
    const done = await browser.get(callback);
    t.equal(done.status, 303, 'the real callback still completes after those');
    await refused('replayed', await browser.get(callback), browser, true);

    const stranger = f.browser();
    await refused('from a browser without our cookie', await stranger.get((await started()).callback), stranger);
    const other = f.browser();
    await other.get(authorizeUrl(codeRequest().params)); // its own CSRF cookie
    await refused('from another browser with its own cookie', await other.get((await started()).callback), other);
    const elsewhere = await started();
    const otherProvider = new URL(elsewhere.callback.href.replace('/upstream/corp/', '/upstream/other/'));
    await refused('for another provider id', await elsewhere.browser.get(otherProvider), elsewhere.browser);
    const unknown = new URL(elsewhere.callback.href.replace('/upstream/corp/', '/upstream/nope/'));
    await refused('for an unknown provider id', await elsewhere.browser.get(unknown), elsewhere.browser);
    t.equal(f.upstream.requestsTo('/token').length, 1, 'only the real callback exchanged a code');
  });

  t.test("a callback from another browser with the victim's state is refused and leaves the sign-in to the victim", async (t) => {
    const f = await federation(t, {
      store: await openStore(t),
      providers: (u) => [u.providerEntry('corp'), u.providerEntry('other')],
    });
    const refused = refusedIn(t);
    const victim = await signInAtUpstream(f, ACCOUNTS.ada.sub);
    // The attacker learnt the state (and may bring a code of their own sign-in at the provider).
    const attackers = await signInAtUpstream(f, ACCOUNTS.eve.sub);
    const stolen = new URL(attackers.callback);
    stolen.searchParams.set('state', victim.callback.searchParams.get('state') as string);
    const stranger = f.browser();
    await refused('without any cookie of ours', await stranger.get(victim.callback), stranger);
    const elsewhere = await attackers.browser.get(stolen);
    await refused("with another browser's binding", elsewhere, attackers.browser);
    t.match(elsewhere.body, 'this sign-in was started in another browser and can only be completed there');
    const other = await victim.browser.get(new URL(victim.callback.href.replace('/upstream/corp/', '/upstream/other/')));
    await refused("the victim's browser, sent to another provider's callback", other, victim.browser);
    t.equal(f.upstream.requestsTo('/token').length, 0, 'no code exchanged');

    const done = await victim.browser.get(victim.callback);
    t.equal(done.status, 303, "the victim's own callback still signs her in");
    t.ok(victim.browser.cookie(ISSUER, SESSION_COOKIE), 'her session');
    const finished = await victim.browser.follow(done);
    t.equal(finished.status, 200);
    t.match(finished.body, 'Signed in as <strong>ada@example.com</strong>');
    await refused('a replay after success', await victim.browser.get(victim.callback), victim.browser, true);
    await refused('a replay from the other browser', await attackers.browser.get(stolen), attackers.browser);
    t.equal(f.upstream.requestsTo('/token').length, 1, 'one code exchange: hers');
  });

  t.test('two concurrent callbacks with one state: exactly one signs in, the other gets the page', async (t) => {
    const f = await federation(t, { store: await openStore(t) });
    const { browser, callback } = await signInAtUpstream(f, ACCOUNTS.ada.sub);
    const answers = await Promise.all([browser.get(callback), browser.get(callback)]);
    t.same(answers.map((res) => res.status).sort(), [303, 400]);
    t.equal(f.upstream.requestsTo('/token').length, 1, 'one code exchange');
  });

  t.test('a callback after 10 minutes: the sign-in expired, the page', async (t) => {
    const f = await federation(t, { store: await openStore(t) });
    const late = await signInAtUpstream(f, ACCOUNTS.ada.sub);
    await f.server.advance(601);
    refusedIn(t)('expired', await late.browser.get(late.callback), late.browser);
    const inTime = await signInAtUpstream(f, ACCOUNTS.ada.sub);
    await f.server.advance(599);
    t.equal((await inTime.browser.get(inTime.callback)).status, 303, 'within 10 minutes: signed in');
  });

  t.test('the upstream down at the callback: access_denied at the client, nobody signed in', async (t) => {
    const f = await federation(t, { store: await openStore(t) });
    const { browser, callback } = await signInAtUpstream(f, ACCOUNTS.ada.sub);
    await f.upstream.stop();
    const res = await browser.get(callback);
    t.equal(res.status, 302);
    t.same(clientAnswer(res.location as URL), errorAtClient('access_denied', 'the sign-in at the identity provider did not succeed'));
    t.equal(browser.cookie(ISSUER, SESSION_COOKIE), undefined);
  });
}

import type { BrowserContextOptions, Page } from 'playwright-core';
import t from 'tap';
import { axeViolations, DESKTOP, imagesLoaded, openPage, PHONE } from '../helpers/accessibility.js';
import { launchChromium } from '../helpers/chromium.js';
import { SHOWCASE_USER, type Showcase, startShowcase } from '../helpers/page-showcase.js';

/**
 * The login, consent (a first one and a step-up), error, device flow (code, consent, approved),
 * console (overview, grants, a revocation, keys, the 403 page, users, identity providers, workload trusts) and account pages in Chromium: axe-core finds no violation of the
 * WCAG 2.0/2.1/2.2 A and AA rules (nor of its best practices), in light and dark schemes,
 * in English and German, at phone and desktop sizes; the logos load under the CSP; the
 * show-password toggle works with scripts and is absent without them. The screenshots in
 * docs/ come from the same pages (`npm run docs:screenshots`); this test writes nothing. The
 * console's client and resource pages have a file of their own (console-entries.accessibility.test.ts).
 */

/** The id of the focused element, or its text when it has none. */
async function focused(page: Page): Promise<string> {
  return (await page.evaluate("document.activeElement?.id || document.activeElement?.textContent || ''")) as string;
}

t.test('the pages in Chromium: accessibility, logos under the CSP, the password toggle', async (t) => {
  const showcase: Showcase = await startShowcase();
  t.teardown(() => showcase.close());
  const browser = await launchChromium(t);

  const pages: [string, (page: Page) => Promise<void>, number][] = [
    ['login', (page) => showcase.openLogin(page), 2],
    ['consent', (page) => showcase.openConsent(page), 2],
    ['consent of a step-up', (page) => showcase.openStepUpConsent(page), 2],
    ['error', (page) => showcase.openError(page), 1],
    ['device code', (page) => showcase.openDeviceCode(page), 1],
    ['device consent', (page) => showcase.openDeviceConsent(page), 2],
    ['device approved', (page) => showcase.openDeviceApproved(page), 1],
    ['console overview', (page) => showcase.openConsoleOverview(page), 1],
    ['console grants', (page) => showcase.openConsoleGrants(page), 1],
    ['console revocation', (page) => showcase.openConsoleRevoke(page), 1],
    ['console keys', (page) => showcase.openConsoleKeys(page), 1],
    ['console 403', (page) => showcase.openConsoleForbidden(page), 1],
    ['account', (page) => showcase.openAccount(page), 1],
    // users, identity providers, workload trusts
    ['console users', (page) => showcase.openConsoleUsers(page), 1],
    ['console user', (page) => showcase.openConsoleUser(page), 1],
    ['console new user with problems', (page) => showcase.openConsoleNewUserProblems(page), 1],
    ['console identity providers', (page) => showcase.openConsoleProviders(page), 1],
    ['console identity provider', (page) => showcase.openConsoleProvider(page), 1],
    ['console workload trusts', (page) => showcase.openConsoleTrusts(page), 1],
    ['console workload trust', (page) => showcase.openConsoleTrust(page), 1],
  ];
  const variants: [string, BrowserContextOptions][] = [
    ['phone, light, English', { viewport: PHONE, colorScheme: 'light', locale: 'en-US' }],
    ['desktop, dark, German', { viewport: DESKTOP, colorScheme: 'dark', locale: 'de-DE' }],
  ];
  for (const [variant, options] of variants) {
    for (const [name, open, logos] of pages) {
      t.test(`${name} (${variant})`, async (t) => {
        const { page, problems } = await openPage(t, browser, options);
        await open(page);
        t.same(await axeViolations(page), [], 'no axe violations');
        t.same(await imagesLoaded(page), Array(logos).fill(true), 'the logos load: img-src allows their origins');
        t.equal(await page.getAttribute('html', 'lang'), options.locale?.slice(0, 2));
        t.same(problems, [], 'no CSP violation, no failed request');
      });
    }
  }

  t.test('a login that came back with an error is accessible too, the message announced', async (t) => {
    const { page } = await openPage(t, browser, { viewport: PHONE, colorScheme: 'light' });
    await showcase.openLogin(page);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('not-her-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.equal(await page.getByRole('alert').textContent(), 'Incorrect username or password.');
    t.same(await axeViolations(page), []);
    t.equal(await focused(page), 'password', 'the focus is on the field to fill again');
  });

  t.test('a wrong device code is accessible too, the message announced, the focus on the field', async (t) => {
    const { page } = await openPage(t, browser, { viewport: PHONE, colorScheme: 'dark', locale: 'de-DE' });
    await page.goto(`${showcase.issuer}/device`);
    t.equal(await focused(page), 'user_code');
    await page.locator('#user_code').fill('BCDF-GHJK');
    await page.locator('button[type=submit]').click();
    t.equal(
      await page.getByRole('alert').textContent(),
      'Dieser Code ist falsch, abgelaufen oder wurde schon verwendet. Prüfen Sie den Code auf Ihrem Gerät.',
    );
    t.same(await axeViolations(page), []);
  });

  t.test('keyboard: focus moves username → password → show password → sign in, with a visible ring', async (t) => {
    const { page } = await openPage(t, browser, { viewport: DESKTOP, colorScheme: 'light' });
    await showcase.openLogin(page);
    t.equal(await focused(page), 'username', 'the first field has the focus');
    const order: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      await page.keyboard.press('Tab');
      order.push(await focused(page));
    }
    t.same(order, ['password', 'show-password', 'Sign in']);
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    t.equal(outline, 'solid', 'the focused button shows an outline');
  });

  t.test('keyboard alone: the console from the overview to a grant revoked, the focus always visible', async (t) => {
    const { page } = await openPage(t, browser, { viewport: DESKTOP, colorScheme: 'light' });
    await showcase.openConsoleOverview(page);
    /** Tabs until the focused element's id or text is `target` (at most 30 times). */
    const tabTo = async (target: string | RegExp) => {
      for (let i = 0; i < 30; i += 1) {
        await page.keyboard.press('Tab');
        const at = (await focused(page)).trim();
        if (typeof target === 'string' ? at === target : target.test(at)) {
          t.equal(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'solid', `${at}: a visible ring`);
          return;
        }
      }
      throw new Error(`never reached ${String(target)}`);
    };
    await tabTo('Grants');
    await Promise.all([page.waitForURL(/\/admin\/grants$/), page.keyboard.press('Enter')]);
    await tabTo('sub');
    await page.keyboard.type(SHOWCASE_USER.sub);
    await Promise.all([page.waitForURL(/\/admin\/grants\?/), page.keyboard.press('Enter')]);
    await tabTo(/^Revoke/);
    await Promise.all([page.waitForURL(/\/admin\/grants\/revoke\?/), page.keyboard.press('Enter')]);
    await tabTo('Revoke the grant');
    await Promise.all([page.waitForURL(/notice=grant-revoked/), page.keyboard.press('Enter')]);
    t.equal(await page.getByRole('status').textContent(), 'The grant was revoked.');
    t.same(await axeViolations(page), [], 'the page after the change');
  });

  t.test('show password: the hashed script runs under the CSP; without scripts the field stays a password field', async (t) => {
    const { page, problems } = await openPage(t, browser, { viewport: PHONE });
    await showcase.openLogin(page);
    const password = page.locator('#password');
    await password.fill('secret-value');
    t.equal(await password.getAttribute('type'), 'password');
    await page.getByLabel('Show password').check();
    t.equal(await password.getAttribute('type'), 'text');
    await page.getByLabel('Show password').uncheck();
    t.equal(await password.getAttribute('type'), 'password');
    t.same(problems, []);

    const { page: noScript } = await openPage(t, browser, { viewport: PHONE, javaScriptEnabled: false });
    await showcase.openLogin(noScript);
    t.equal(await noScript.locator('#show-password').isVisible(), false, 'no toggle without scripts');
    t.equal(await noScript.locator('#password').getAttribute('type'), 'password');
  });
});

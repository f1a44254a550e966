import type { BrowserContextOptions, Page } from 'playwright-core';
import t from 'tap';
import { axeViolations, DESKTOP, imagesLoaded, openPage, PHONE } from '../helpers/accessibility.js';
import { launchChromium } from '../helpers/chromium.js';
import { type Showcase, startShowcase } from '../helpers/page-showcase.js';

/**
 * The console's client and resource pages in Chromium (the showcase's, test/helpers/
 * console-entries-showcase.ts): axe-core finds no violation of the WCAG 2.0/2.1/2.2 A and AA
 * rules (nor of its best practices), in English and German, light and dark, phone and
 * desktop; the page of a secret runs its copy script under its CSP with no violation.
 */

t.test("the console's client and resource pages in Chromium: accessibility", async (t) => {
  const showcase: Showcase = await startShowcase();
  t.teardown(() => showcase.close());
  const browser = await launchChromium(t);
  const pages: [string, (page: Page) => Promise<void>][] = [
    ['clients', (page) => showcase.openConsoleClients(page)],
    ['a new client', (page) => showcase.openConsoleNewClient(page)],
    ['a new client with a problem', (page) => showcase.openConsoleClientProblems(page)],
    ["a client's secret", (page) => showcase.openConsoleClientSecret(page)],
    ['a client edited', (page) => showcase.openConsoleClientEdit(page)],
    ["a file's client", (page) => showcase.openConsoleClientFile(page)],
    ['a new secret', (page) => showcase.openConsoleClientRotate(page)],
    ["a client's deletion", (page) => showcase.openConsoleClientDelete(page)],
    ['resources', (page) => showcase.openConsoleResources(page)],
    ['a new resource', (page) => showcase.openConsoleNewResource(page)],
    ['a resource edited', (page) => showcase.openConsoleResourceEdit(page)],
    ["a file's resource", (page) => showcase.openConsoleResourceFile(page)],
    ["a resource's deletion", (page) => showcase.openConsoleResourceDelete(page)],
  ];
  const variants: [string, BrowserContextOptions][] = [
    ['phone, light, English', { viewport: PHONE, colorScheme: 'light', locale: 'en-US' }],
    ['desktop, dark, German', { viewport: DESKTOP, colorScheme: 'dark', locale: 'de-DE' }],
  ];
  for (const [variant, options] of variants) {
    for (const [name, open] of pages) {
      t.test(`${name} (${variant})`, async (t) => {
        const { page, problems } = await openPage(t, browser, options);
        await open(page);
        t.same(await axeViolations(page), [], 'no axe violations');
        t.same(await imagesLoaded(page), [true], 'the logo loads');
        t.equal(await page.getAttribute('html', 'lang'), options.locale?.slice(0, 2));
        t.same(problems, [], 'no CSP violation, no failed request');
      });
    }
  }

  t.test("the secret's page: its copy button shown by the script (the CSP allows that file alone)", async (t) => {
    const { page, problems } = await openPage(t, browser, { viewport: PHONE, locale: 'en-US' });
    await showcase.openConsoleClientSecret(page);
    // The script file loads after the page; on a busy host it may not have run yet.
    const copy = page.getByRole('button', { name: 'Copy the secret' });
    await copy.waitFor({ state: 'visible', timeout: 10_000 });
    t.ok(await copy.isVisible());
    t.same(problems, []);
  });
});

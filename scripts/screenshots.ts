import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { startShowcase } from '../test/helpers/page-showcase.js';

/**
 * `npm run docs:screenshots`: the login, consent and error pages, the console and the account
 * page as an operator brands them (test/helpers/page-showcase.ts), at phone (390×844) and
 * desktop (1280×800) sizes, written to docs/screenshots/. Only this script writes them; the
 * tests never do. Names given after `--` limit it to the pages whose name starts with one of
 * them: `npm run docs:screenshots -- console account`.
 */

const OUT = 'docs/screenshots';
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

await mkdir(OUT, { recursive: true });
const showcase = await startShowcase();
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const pages: [string, (page: Page) => Promise<void>][] = [
    ['login', (page) => showcase.openLogin(page)],
    ['consent', (page) => showcase.openConsent(page)],
    ['consent-step-up', (page) => showcase.openStepUpConsent(page)],
    ['error', (page) => showcase.openError(page)],
    ['console-overview', (page) => showcase.openConsoleOverview(page)],
    ['console-grants', (page) => showcase.openConsoleGrants(page)],
    ['console-keys', (page) => showcase.openConsoleKeys(page)],
    ['console-forbidden', (page) => showcase.openConsoleForbidden(page)],
    // The console's clients and resources.
    ['console-clients', (page) => showcase.openConsoleClients(page)],
    ['console-client-new', (page) => showcase.openConsoleClientProblems(page)],
    ['console-client-secret', (page) => showcase.openConsoleClientSecret(page)],
    ['console-client-edit', (page) => showcase.openConsoleClientEdit(page)],
    ['console-resources', (page) => showcase.openConsoleResources(page)],
    ['account', (page) => showcase.openAccount(page)],
    // users, identity providers, workload trusts
    ['console-users', (page) => showcase.openConsoleUsers(page)],
    ['console-user', (page) => showcase.openConsoleUser(page)],
    ['console-providers', (page) => showcase.openConsoleProviders(page)],
    ['console-provider', (page) => showcase.openConsoleProvider(page)],
    ['console-workload-trusts', (page) => showcase.openConsoleTrusts(page)],
    ['console-workload-trust', (page) => showcase.openConsoleTrust(page)],
  ];
  const only = process.argv.slice(2);
  const chosen = pages.filter(([name]) => only.length === 0 || only.some((prefix) => name.startsWith(prefix)));
  for (const [size, viewport] of Object.entries(SIZES)) {
    for (const [name, open] of chosen) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme: 'light', locale: 'en-US' });
      const page = await context.newPage();
      await open(page);
      await page.evaluate('document.fonts.ready');
      const file = join(OUT, `${name}-${size}.png`);
      await page.screenshot({ path: file, fullPage: true });
      process.stdout.write(`${file} ${(await stat(file)).size} bytes\n`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  await showcase.close();
}

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { Test } from 'tap';

/** What the accessibility tests share: axe-core run in a page, a fresh context that collects CSP violations and failed requests. */

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/**
 * Runs axe in the page (through the DevTools protocol, which the page's CSP does not govern):
 * its source sent with Runtime.evaluate (Playwright's `evaluate` wraps and sends a 500 KB
 * expression at about twice the cost), then `axe.run` with every result type but violations
 * reduced to one node each (`resultTypes`: the violations stay complete, the run takes about
 * half as long).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const session = await page.context().newCDPSession(page);
  try {
    const loaded = (await session.send('Runtime.evaluate', { expression: axeSource })) as { exceptionDetails?: unknown };
    if (loaded.exceptionDetails) throw new Error(`axe-core did not load: ${JSON.stringify(loaded.exceptionDetails)}`);
  } finally {
    await session.detach();
  }
  const results = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} }, resultTypes: ['violations'] })`,
  )) as AxeResults;
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** A fresh context; CSP violations, failed requests and failed subresources are collected. */
export async function openPage(t: Test, browser: Browser, options: BrowserContextOptions) {
  const context = await browser.newContext(options);
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  // The error page itself answers 400; anything else it loads must succeed.
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'document' && response.status() >= 400)
      problems.push(`${response.status()}: ${response.url()}`);
  });
  return { page, problems };
}

export async function imagesLoaded(page: Page): Promise<boolean[]> {
  return (await page.evaluate('[...document.images].map((img) => img.complete && img.naturalWidth > 0)')) as boolean[];
}

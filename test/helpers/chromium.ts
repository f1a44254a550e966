import { type Browser, chromium } from 'playwright-core';
import type { Test } from 'tap';

/** Debian's Chromium, installed by .ci/run; a test fails (never skips) when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless Chromium with no traffic of its own, closed when the test ends. Playwright
 * gives every launch a fresh temporary profile (`--user-data-dir`) and refuses one in `args`.
 */
export async function launchChromium(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.teardown(() => browser.close());
  return browser;
}

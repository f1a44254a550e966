import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { hashClientSecret } from '../../src/clients/secret.js';
import { InjectBrowser, codeRequest, pkcePair, redirectParams, signInAndDecide } from './browser-flow.js';
import { type ConsoleEntriesShowcase, consoleEntriesShowcase } from './console-entries-showcase.js';
import { cheapPasswordHash } from './passwords.js';
import { identityShowcase, type IdentityShowcase } from './console-identity-showcase.js';

/**
 * The console and the account page of the showcase (page-showcase.ts): an administrator, a
 * client that makes traffic, an hour of that traffic replayed minute by minute on the
 * showcase's clock (so the overview's charts have something to draw), and an app alice
 * connected. What the accessibility test and `npm run docs:screenshots` open.
 */

export const SHOWCASE_ADMIN = { username: 'ada', password: 'analytical-engine-1843', sub: 'ada@example.com' } as const;
const REPORTS_SECRET = 'reports-secret-0123456789abcdefghijklmnopqrstu';

/** Someone without the role admin, for the 403 page (alice stays out of the console: her account page shows her apps alone). */
const SHOWCASE_VISITOR = { username: 'bob', password: 'builder-2026', sub: 'bob@example.com' } as const;

export const CONSOLE_SHOWCASE_USERS = [
  { username: SHOWCASE_VISITOR.username, password_hash: cheapPasswordHash(SHOWCASE_VISITOR.password), sub: SHOWCASE_VISITOR.sub },
  {
    username: SHOWCASE_ADMIN.username,
    password_hash: cheapPasswordHash(SHOWCASE_ADMIN.password),
    sub: SHOWCASE_ADMIN.sub,
    roles: ['admin'],
    claims: { name: 'Ada Lovelace' },
  },
];

export const CONSOLE_SHOWCASE_CLIENTS = [
  {
    client_id: 'reports',
    client_name: 'Acme Reports',
    client_secret_hash: hashClientSecret(REPORTS_SECRET),
    grant_types: ['client_credentials', 'refresh_token', 'password'],
    scope: 'photos:read',
  },
];

export interface ConsoleShowcase extends ConsoleEntriesShowcase, IdentityShowcase {
  openConsoleOverview(page: Page): Promise<void>;
  openConsoleGrants(page: Page): Promise<void>;
  openConsoleRevoke(page: Page): Promise<void>;
  openConsoleKeys(page: Page): Promise<void>;
  /** bob (no role admin) at /admin. */
  openConsoleForbidden(page: Page): Promise<void>;
  /** alice at /account, with the app she connected. */
  openAccount(page: Page): Promise<void>;
}

function tokenRequest(app: FastifyInstance, form: Record<string, string>, secret = REPORTS_SECRET) {
  return app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`reports:${secret}`).toString('base64')}`,
    },
    payload: new URLSearchParams(form).toString(),
    remoteAddress: '198.51.100.7',
  });
}

/** An hour of traffic, one minute at a time on the showcase's clock (`setOffset` moves it back, then home). */
export async function replayTheLastHour(app: FastifyInstance, setOffset: (ms: number) => void): Promise<void> {
  for (let minute = 0; minute < 60; minute++) {
    setOffset(-(59 - minute) * 60_000);
    const calls = 2 + ((minute * 7) % 5) + (minute > 40 ? 3 : 0);
    for (let i = 0; i < calls; i++) await tokenRequest(app, { grant_type: 'client_credentials' });
    if (minute % 4 === 0)
      await tokenRequest(app, { grant_type: 'password', username: SHOWCASE_ADMIN.username, password: SHOWCASE_ADMIN.password });
    if (minute % 9 === 3) await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'expired-or-never-issued' });
    if (minute % 13 === 5) await tokenRequest(app, { grant_type: 'client_credentials' }, 'not-the-secret');
  }
  setOffset(0);
}

/** `user` allows `photos` (a public client) once, and the app redeems its code: a grant with a refresh token. */
export async function connectPhotos(
  app: FastifyInstance,
  user: { username: string; password: string },
  redirectUri: string,
  resource: string,
) {
  const { verifier, challenge } = pkcePair();
  const done = await signInAndDecide(
    new InjectBrowser(app),
    codeRequest('photos', redirectUri, challenge, 'photos:read photos:write'),
    user,
    'allow',
    [resource],
  );
  const code = redirectParams(done.headers.location as string).code as string;
  await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'photos',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }).toString(),
  });
}

/** Opens `path` and signs in on the login page it leads to, as `user`; on until a page of ours that is not the login page. */
export async function openSignedIn(issuer: string, page: Page, path: string, user: { username: string; password: string }) {
  await page.goto(`${issuer}${path}`);
  await page.locator('#username').fill(user.username);
  await page.locator('#password').fill(user.password);
  await Promise.all([
    page.waitForURL((url) => !url.pathname.startsWith('/oauth2/') && !url.pathname.endsWith('/callback')),
    page.locator('button[type=submit]').click(),
  ]);
}

export function consoleShowcase(issuer: string, alice: { username: string; password: string; sub: string }): ConsoleShowcase {
  const signedIn = (page: Page, path: string, user: { username: string; password: string }) => openSignedIn(issuer, page, path, user);
  const grants = async (page: Page) => {
    await signedIn(page, `/admin/grants?${new URLSearchParams({ sub: alice.sub })}`, SHOWCASE_ADMIN);
    await page.waitForSelector('table');
  };
  return {
    ...consoleEntriesShowcase(issuer, (page, path) => signedIn(page, path, SHOWCASE_ADMIN)),
    // users, identity providers, workload trusts
    ...identityShowcase(signedIn, SHOWCASE_ADMIN),
    openConsoleOverview: (page) => signedIn(page, '/admin', SHOWCASE_ADMIN),
    openConsoleGrants: grants,
    async openConsoleRevoke(page) {
      await grants(page);
      await Promise.all([page.waitForURL(/\/admin\/grants\/revoke\?/), page.locator('a[href*="/admin/grants/revoke"]').first().click()]);
    },
    openConsoleKeys: (page) => signedIn(page, '/admin/keys', SHOWCASE_ADMIN),
    openConsoleForbidden: (page) => signedIn(page, '/admin', SHOWCASE_VISITOR),
    openAccount: (page) => signedIn(page, '/account', alice),
  };
}

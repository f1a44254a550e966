import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { hashClientSecret } from '../../src/clients/secret.js';
import { nowSeconds } from '../../src/clock.js';
import { Signer } from '../../src/session/signer.js';
import { UserRegistry } from '../../src/users/registry.js';
import { ALICE, WEB_SECRET } from './authorize-fixtures.js';
import { formAction, formFields, InjectBrowser } from './browser-flow.js';
import { cheapPasswordHash } from './passwords.js';

/** The console and the account page driven through inject(): the people, the apps, the sign-in, the sealed cookie. */

/** The signer of buildTestServer (its session secret): what opens the console's sealed cookie in a test. */
export const TEST_SIGNER = new Signer('test-session-secret-0123456789abcdef');

export const ROOT = { username: 'root', password: 'root-password-2026', sub: 'root' } as const;

/** root (role admin), alice (sub user-alice, no role) and bob. */
export function consoleUsers(): UserRegistry {
  return UserRegistry.fromEntries([
    {
      username: ROOT.username,
      password_hash: cheapPasswordHash(ROOT.password),
      roles: ['admin'],
      claims: { name: 'Root Admin', email: 'root@example.com', email_verified: true },
    },
    { username: ALICE.username, password_hash: cheapPasswordHash(ALICE.password), sub: 'user-alice', claims: { name: 'Alice' } },
    { username: 'bob', password_hash: cheapPasswordHash('bob-password-1') },
  ]);
}

/** Two apps a person connects with the code flow: each confidential, with refresh tokens, at the photos API. */
export const PHOTOS_API = 'https://api.photos.example.com/';
export const APPS = [
  {
    client_id: 'photos',
    client_name: 'Acme Photos',
    client_uri: 'https://photos.example.com/',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    redirect_uris: ['https://photos.example.com/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'openid photos:read photos:write',
    // The test keys folder has an ES256 chain alone.
    id_token_signed_response_alg: 'ES256',
  },
  {
    client_id: 'printer',
    client_name: 'Acme Prints',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    redirect_uris: ['https://prints.example.com/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'photos:read',
  },
  {
    client_id: 'service',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['client_credentials'],
    scope: 'photos:read',
  },
];
export const PHOTOS_RESOURCE = {
  resource: PHOTOS_API,
  name: 'Acme Photos API',
  scope: 'photos:read photos:write',
  scope_descriptions: {
    'photos:read': { en: 'See your photos and albums', de: 'Ihre Fotos und Alben ansehen' },
    'photos:write': { en: 'Upload and edit photos', de: 'Fotos hochladen und bearbeiten' },
  },
};

/** Follows the answers of `first` (303/302 within the server) until a page; the last response. */
export async function follow(
  browser: InjectBrowser,
  first: LightMyRequestResponse,
  stopAt?: (location: string) => boolean,
): Promise<LightMyRequestResponse> {
  let res = first;
  for (let hops = 0; hops < 10 && (res.statusCode === 302 || res.statusCode === 303); hops++) {
    const location = res.headers.location as string;
    if (stopAt?.(location)) return res;
    res = await browser.get(location.replace(/^https:\/\/as\.example\.com/, ''));
  }
  return res;
}

/** From a login page on: the password form submitted, then every redirect followed (the console's callback included). */
export async function signInOnLoginPage(
  browser: InjectBrowser,
  login: LightMyRequestResponse,
  user: { username: string; password: string },
) {
  if (login.statusCode !== 200 || !login.body.includes('name="password"')) throw new Error(`not a login page: ${login.statusCode}`);
  return follow(browser, await browser.post(formAction(login.body), { ...formFields(login.body), ...user }));
}

/** Opens `path` (a page of the console or /account) signed in as `user`: the sign-in through the authorization endpoint when needed. */
export async function signedInAt(
  app: FastifyInstance,
  path: string,
  user: { username: string; password: string },
  browser = new InjectBrowser(app),
) {
  const first = await follow(browser, await browser.get(path));
  const page = first.body.includes('name="password"') ? await signInOnLoginPage(browser, first, user) : first;
  return { browser, page };
}

/** What the console's cookie holds, opened with the test's secret (the browser cannot). */
export function consoleCookieContent(value: string | undefined, now: number) {
  return TEST_SIGNER.open<{
    sub: string;
    iat: number;
    tokens: { accessToken: string; refreshToken?: string; expiresAt: number; scope: string[] };
  }>('console-session', value, now);
}

export const nowOf = (clock: { now: number }) => nowSeconds(() => clock.now);

/** The hidden fields and action of the form whose action is `action` on `html`. */
export function formOn(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  if (start === -1) throw new Error(`no form posting to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  return formFields(`<form method="post" ${form}`);
}

import type { FastifyInstance } from 'fastify';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE, WEB_SECRET } from './authorize-fixtures.js';
import type { InjectBrowser } from './browser-flow.js';
import { consoleCookieContent, nowOf, TEST_SIGNER } from './console.js';
import { tokenRequest } from './security-flows.js';
import { ISSUER } from './server.js';

/** The console's pages of entries (clients, resources) through inject(): what their tests share. */

export const SAME_ORIGIN = { origin: ISSUER, 'sec-fetch-site': 'same-origin' };

/** A client of the file that may ask for admin:read alone, with the password grant: what makes a read-only console session. */
export const READER = {
  client_id: 'reader',
  client_secret_hash: hashClientSecret(WEB_SECRET),
  grant_types: ['password'],
  scope: 'admin:read',
};

/** The console session of `browser` (signed in as an administrator) with a token that has admin:read and no admin:write. */
export async function readOnlySession(
  app: FastifyInstance,
  browser: InjectBrowser,
  clock: { now: number },
  user: { username: string; password: string },
) {
  const res = await tokenRequest(app, READER.client_id, WEB_SECRET, {
    grant_type: 'password',
    username: user.username,
    password: user.password,
    scope: 'admin:read',
    resource: `${ISSUER}/admin/v1`,
  });
  if (res.statusCode !== 200) throw new Error(`admin:read token: ${res.statusCode} ${res.body}`);
  const { access_token: accessToken, expires_in: expiresIn } = res.json() as { access_token: string; expires_in: number };
  const now = nowOf(clock);
  const content = consoleCookieContent(browser.cookie('__Host-oauth_console'), now);
  if (!content) throw new Error('not signed in to the console');
  const tokens = { accessToken, expiresAt: now + expiresIn, scope: ['admin:read'] };
  browser.setCookie('__Host-oauth_console', TEST_SIGNER.seal('console-session', { ...content, tokens }, now + expiresIn));
}

/** The value of the read-only field that shows a secret once. */
export function secretOn(body: string): string | undefined {
  return /<input id="client_secret" type="text" readonly [^>]*value="([^"]+)">/.exec(body)?.[1];
}

/** The scope of an access token (its payload, unverified: it came from the token endpoint just now). */
export function scopeOf(accessToken: string): string {
  return JSON.parse(Buffer.from(accessToken.split('.')[1] as string, 'base64url').toString()).scope as string;
}

export { ALICE };

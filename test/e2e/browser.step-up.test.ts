import { createRemoteJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { launchChromium } from '../helpers/chromium.js';
import { postAsClient } from '../helpers/http-browser.js';
import { startCallbackServer } from '../helpers/mcp-oauth.js';
import { PROCESS_ALICE, startServerWithClients } from '../helpers/registry-files.js';

/**
 * Step-up (the MCP authorization spec's "Scope Challenge Handling") in a real browser against
 * the built server: alice approves `read`; the client comes back for `read write`; the consent
 * page asks only for `write`, shows `read` as already shared, and the token carries both.
 */

const CLIENT = { id: 'agent', secret: 'step-up-test-secret-0123456789abcdefghijklmnop' };

t.test('step-up in Chromium: only the new scope is asked, the token carries both', async (t) => {
  const callback = await startCallbackServer(t);
  const { redirectUri } = callback;
  const { issuer } = await startServerWithClients(t, [
    {
      client_id: 'agent',
      client_name: 'Step-up Agent',
      client_secret_hash: hashClientSecret(CLIENT.secret),
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read write',
    },
  ]);
  const page = await (await (await launchChromium(t)).newContext()).newPage();

  /** Goes through the authorization endpoint for `scope` (the browser's steps in `act`); the token response. */
  const tokensFor = async (scope: string, act: () => Promise<void>) => {
    const { verifier, challenge } = pkcePair();
    const params = { response_type: 'code', client_id: 'agent', redirect_uri: redirectUri, scope, state: scope, code_challenge: challenge };
    await page.goto(`${issuer}/oauth2/authorize?${new URLSearchParams({ ...params, code_challenge_method: 'S256' })}`);
    await act();
    const arrived = await callback.next();
    t.equal(arrived.get('state'), scope);
    t.equal(arrived.get('iss'), issuer);
    const code = arrived.get('code') as string;
    const res = await postAsClient(`${issuer}/oauth2/token`, CLIENT, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    t.equal(res.status, 200);
    return res.body;
  };

  const first = await tokensFor('read', async () => {
    await page.getByLabel('Username').fill(PROCESS_ALICE.username);
    await page.getByLabel('Password', { exact: true }).fill(PROCESS_ALICE.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('text=Allow access?');
    t.match(await page.textContent('main'), 'Step-up Agent asks for access to your account');
    await page.getByRole('button', { name: 'Allow' }).click();
  });
  t.equal(first.scope, 'read');

  const second = await tokensFor('read write', async () => {
    await page.waitForSelector('text=Allow access?');
    t.match(await page.textContent('main'), 'Step-up Agent asks for more access to your account');
    t.equal(await page.textContent('main p:has-text("with these new permissions:") + ul'), 'write', 'only the new scope is asked');
    t.equal(await page.textContent('main p:has-text("Already shared with") + ul'), 'read', 'the approved one is already shared');
    t.equal(await page.locator('main ul code').count(), 2, 'no scope listed twice');
    await page.getByRole('button', { name: 'Allow' }).click();
  });
  t.equal(second.scope, 'read write');
  const { payload } = await jwtVerify(second.access_token as string, createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)), {
    issuer,
    audience: issuer,
    typ: 'at+jwt',
  });
  t.match(payload, { sub: PROCESS_ALICE.sub, client_id: 'agent', scope: 'read write' });

  const third = await tokensFor('read write', async () => undefined);
  t.equal(third.scope, 'read write', 'the union is remembered: no page the next time');
});

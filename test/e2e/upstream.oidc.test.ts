import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { freePort } from '../../harness/ports.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { launchChromium } from '../helpers/chromium.js';
import { postAsClient } from '../helpers/http-browser.js';
import { tempDir } from '../helpers/keys.js';
import { startAuthorizationServer, startExampleMcpServer, TOOLS_SCOPE } from '../helpers/mcp.js';
import { BrowserOAuthProvider, connectWithOAuth, startCallbackServer } from '../helpers/mcp-oauth.js';
import { startUpstreamOidc, type UpstreamOidc } from '../helpers/upstream-oidc.js';

/**
 * Sign-in through an upstream OpenID provider (node-oidc-provider, its own login and
 * consent pages) with the built server as a process and Chromium: down at start (a clear
 * page, the rest of the server unaffected), then "Continue with …"; stable and distinct
 * federated subs, userinfo with the upstream's email, a user outside allowed_email_domains
 * refused at the client, and the upstream never told the client's resource. Then the
 * official MCP SDK client, registered dynamically, through the same provider to a tool.
 */

const SECRET = 'upstream-e2e-client-secret-0123456789abcdefgh';
const API = 'https://api.example.com/';
const ACCOUNTS = [
  { sub: 'ada-1', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace', preferred_username: 'ada' },
  { sub: 'bob-2', email: 'bob@example.com', email_verified: true, name: 'Bob' },
  { sub: 'eve-3', email: 'eve@elsewhere.example', email_verified: true, name: 'Eve' },
];

/** At the upstream's pages (devInteractions): its login, then its consent; on until our consent page. */
async function atUpstream(page: Page, upstream: UpstreamOidc, login: string): Promise<void> {
  await page.waitForURL(`${upstream.issuer}/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

async function providersFile(t: Test, entries: unknown[]): Promise<string> {
  const file = join(await tempDir(t), 'providers.json');
  await writeFile(file, JSON.stringify({ providers: entries }), { mode: 0o600 });
  return file;
}

t.test('sign-in through node-oidc-provider in Chromium', async (t) => {
  const client = await startCallbackServer(t);
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const upstream = await startUpstreamOidc(t, { accounts: ACCOUNTS, redirectUris: [`${issuer}/oauth2/upstream/corp/callback`] });
  await upstream.stop();
  const file = await providersFile(t, [upstream.providerEntry('corp', { name: 'Corporate SSO', allowed_email_domains: ['example.com'] })]);
  const clients = [
    {
      client_id: 'web',
      client_name: 'Web App',
      client_secret_hash: hashClientSecret(SECRET),
      redirect_uris: [client.redirectUri],
      grant_types: ['authorization_code', 'client_credentials'],
      scope: 'read',
    },
  ];
  const as = await startAuthorizationServer(t, {
    clients,
    resources: [{ resource: API, scope: 'read', name: 'API' }],
    port,
    env: { IDENTITY_PROVIDERS_FILE: file, IDENTITY_PROVIDERS_ALLOW_INSECURE: 'true' },
  });
  t.equal(as.issuer, issuer);
  const browser = await launchChromium(t);

  const authorizeUrl = (challenge: string, extra: Record<string, string> = {}) =>
    `${issuer}/oauth2/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: 'web',
      redirect_uri: client.redirectUri,
      scope: 'openid email profile read',
      resource: API,
      state: 'client-state',
      nonce: 'client-nonce',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    })}`;

  await t.test('the upstream down at start: a clear page, and the rest of the server answers', async (t) => {
    const page = await (await browser.newContext()).newPage();
    const response = await page.goto(authorizeUrl(pkcePair().challenge, { idp: 'corp' }));
    t.equal(response?.status(), 503);
    t.equal(await page.title(), 'Sign-in provider unavailable');
    t.match(await page.textContent('main'), 'Corporate SSO cannot be reached right now');
    const tokens = await postAsClient(
      `${issuer}/oauth2/token`,
      { id: 'web', secret: SECRET },
      { grant_type: 'client_credentials', scope: 'read', resource: API },
    );
    t.equal(tokens.status, 200, 'the token endpoint is unaffected');
    t.equal((await fetch(`${issuer}/readyz`)).status, 200, 'and so is readiness');
    await page.context().close();
  });

  await upstream.start();
  // A failed discovery is not retried for 5 s.
  await new Promise((resolve) => setTimeout(resolve, 5100));

  /** Through the login page's "Continue with Corporate SSO" and the upstream's pages, as `login`; what arrives at the client. */
  async function signIn(browser: Browser, login: string, decide = true): Promise<{ arrived: URLSearchParams; verifier: string }> {
    const { verifier, challenge } = pkcePair();
    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizeUrl(challenge));
    await page.getByRole('button', { name: 'Continue with Corporate SSO', exact: true }).click();
    await atUpstream(page, upstream, login);
    if (decide) {
      await page.waitForSelector('text=Allow access?');
      await page.getByRole('button', { name: 'Allow' }).click();
    }
    const arrived = await client.next();
    await page.context().close();
    return { arrived, verifier };
  }
  const redeem = async ({ arrived, verifier }: { arrived: URLSearchParams; verifier: string }) => {
    const res = await postAsClient(
      `${issuer}/oauth2/token`,
      { id: 'web', secret: SECRET },
      { grant_type: 'authorization_code', code: arrived.get('code') as string, redirect_uri: client.redirectUri, code_verifier: verifier },
    );
    t.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { access_token: string; id_token: string };
  };

  t.test('Continue with …: a code, a stable fed_ sub, userinfo from the upstream, no resource upstream', async (t) => {
    const first = await redeem(await signIn(browser, 'ada-1'));
    const sub = decodeJwt(first.access_token).sub as string;
    t.match(sub, /^fed_/);
    t.equal(decodeJwt(first.access_token).aud, API);
    t.equal(decodeJwt(first.id_token).sub, sub);
    const userinfo = await fetch(`${issuer}/oauth2/userinfo`, { headers: { authorization: `Bearer ${first.access_token}` } });
    t.equal(userinfo.status, 401, 'a token for the API is not one for userinfo');
    // Consent is remembered: the second sign-in goes straight back to the client.
    const second = await redeem(await signIn(browser, 'ada-1', false));
    t.equal(decodeJwt(second.access_token).sub, sub, 'the same sub at the second sign-in');
    const bob = await redeem(await signIn(browser, 'bob-2'));
    t.not(decodeJwt(bob.access_token).sub, sub, 'another upstream user, another sub');
    for (const request of upstream.authorizationRequests()) {
      t.same(
        [...request.keys()].sort(),
        ['client_id', 'code_challenge', 'code_challenge_method', 'nonce', 'redirect_uri', 'response_type', 'scope', 'state'],
        'only our own parameters upstream',
      );
      t.not(request.get('state'), 'client-state');
      t.not(request.get('nonce'), 'client-nonce');
    }
  });

  t.test('userinfo returns the email the upstream gave', async (t) => {
    const { verifier, challenge } = pkcePair();
    const page = await (await browser.newContext()).newPage();
    await page.goto(
      `${issuer}/oauth2/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: 'web',
        redirect_uri: client.redirectUri,
        scope: 'openid email profile',
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        idp: 'corp',
      })}`,
    );
    await atUpstream(page, upstream, 'ada-1');
    await page.waitForSelector('text=Allow access?');
    const text = (await page.textContent('body')) ?? '';
    t.match(text, 'ada@example.com', 'our consent page names her by her email');
    await page.getByRole('button', { name: 'Allow' }).click();
    const tokens = await redeem({ arrived: await client.next(), verifier });
    const userinfo = await fetch(`${issuer}/oauth2/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    t.same(await userinfo.json(), {
      sub: decodeJwt(tokens.access_token).sub,
      email: 'ada@example.com',
      email_verified: true,
      name: 'Ada Lovelace',
      preferred_username: 'ada',
    });
    await page.context().close();
  });

  t.test('a user outside allowed_email_domains ends at the client with access_denied', async (t) => {
    const { arrived } = await signIn(browser, 'eve-3', false);
    t.same(Object.fromEntries(arrived), {
      error: 'access_denied',
      error_description: 'the identity provider signed the user in, but this server does not let that user sign in',
      state: 'client-state',
      iss: issuer,
    });
  });
});

t.test('the official MCP SDK client, registered dynamically, signs in through the upstream and calls a tool', async (t) => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const mcpPort = await freePort();
  const mcp = { port: mcpPort, resource: `http://127.0.0.1:${mcpPort}/mcp` };
  const upstream = await startUpstreamOidc(t, { accounts: ACCOUNTS, redirectUris: [`${issuer}/oauth2/upstream/corp/callback`] });
  const file = await providersFile(t, [upstream.providerEntry('corp', { name: 'Corporate SSO' })]);
  await startAuthorizationServer(t, {
    resources: [mcp.resource],
    port,
    env: {
      DYNAMIC_CLIENT_REGISTRATION: 'open',
      IDENTITY_PROVIDERS_FILE: file,
      IDENTITY_PROVIDERS_ALLOW_INSECURE: 'true',
    },
  });
  await startExampleMcpServer(t, issuer, mcp);
  const browser = await launchChromium(t);
  const callback = await startCallbackServer(t);
  const provider = new BrowserOAuthProvider({
    browser,
    callback,
    clientMetadata: {
      client_name: 'E2E MCP client',
      redirect_uris: [callback.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    signIn: async (page) => {
      await page.getByRole('button', { name: 'Continue with Corporate SSO', exact: true }).click();
      await atUpstream(page, upstream, 'ada-1');
    },
  });
  const session = await connectWithOAuth(t, mcp.resource, provider, callback);
  const whoami = await session.client.callTool({ name: 'whoami', arguments: {} });
  const identity = whoami.structuredContent as { sub: string; client_id: string; scope: string; aud: string };
  t.match(identity.sub, /^fed_/, 'the MCP server sees the federated user');
  t.match(identity.client_id, /^dyn_/, 'a dynamically registered client');
  t.equal(identity.scope, TOOLS_SCOPE);
  t.equal(identity.aud, mcp.resource);
  t.equal(decodeJwt((provider.tokens() as { access_token: string }).access_token).sub, identity.sub);
  t.notOk(
    upstream.authorizationRequests().some((request) => request.has('resource')),
    "the upstream never received the MCP client's resource",
  );
});

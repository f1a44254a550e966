import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { decodeJwt } from 'jose';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { freePort } from '../../harness/ports.js';
import { launchChromium } from '../helpers/chromium.js';
import { startCallbackServer } from '../helpers/mcp-oauth.js';
import { GithubServer } from '../helpers/github-server.js';
import { postAsClient } from '../helpers/http-browser.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { tempDir } from '../helpers/keys.js';
import { startServerWithClients } from '../helpers/registry-files.js';

/**
 * Sign-in through GitHub with the built server as a process (IDENTITY_PROVIDERS_FILE names
 * the GitHub-compatible test server) and Chromium: "Continue with GitHub" on our login page,
 * "Authorize" on GitHub's, "Allow" on our consent page; the client gets a code and tokens
 * for the federated user. A user outside `allowed_organizations` ends at the client with
 * access_denied.
 */

const SECRET = 'github-e2e-client-secret-0123456789abcdefghij';

t.test('a user signs in with GitHub in Chromium; a user outside the organization gets access_denied', async (t) => {
  const client = await startCallbackServer(t);
  const redirectUri = client.redirectUri;

  const port = await freePort();
  const github = await GithubServer.start(t, {
    callbackUrl: `http://127.0.0.1:${port}/oauth2/upstream/github/callback`,
    appName: 'Acme MCP',
  });
  const member = github.addAccount({
    id: 583231,
    login: 'octocat',
    name: 'The Octocat',
    emails: [{ email: 'octocat@acme.example', primary: true, verified: true, visibility: 'public' }],
    orgs: [{ login: 'acme', id: 42 }],
  });
  const outsider = github.addAccount({ id: 9001, login: 'stranger', orgs: [{ login: 'elsewhere', id: 43 }] });

  const providersFile = join(await tempDir(t), 'providers.json');
  await writeFile(providersFile, JSON.stringify({ providers: [github.provider({ allowed_organizations: ['acme'] })] }), { mode: 0o600 });
  t.equal((await stat(providersFile)).mode & 0o777, 0o600, 'the file holds a client secret: owner only');
  const { issuer } = await startServerWithClients(
    t,
    [
      {
        client_id: 'mcp-client',
        client_name: 'MCP Client',
        client_secret_hash: hashClientSecret(SECRET),
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        scope: 'read',
      },
    ],
    port,
    { IDENTITY_PROVIDERS_FILE: providersFile, IDENTITY_PROVIDERS_ALLOW_INSECURE: 'true' },
  );

  const browser = await launchChromium(t);
  /** In a fresh browser: our authorization request, "Continue with GitHub", GitHub's "Authorize"; the page, wherever it then is. */
  async function throughGithub(browser: Browser, challenge: string) {
    const page = await (await browser.newContext()).newPage();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'mcp-client',
      redirect_uri: redirectUri,
      scope: 'openid email profile read',
      state: 'client-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    await page.goto(`${issuer}/oauth2/authorize?${query}`);
    await page.getByRole('button', { name: 'Continue with GitHub', exact: true }).click();
    await page.waitForURL(`${github.baseUrl}/login/oauth/authorize?**`);
    await page.getByRole('button', { name: 'Authorize', exact: true }).click();
    return page;
  }

  github.signIn(member);
  const { verifier, challenge } = pkcePair();
  const page = await throughGithub(browser, challenge);
  await page.waitForSelector('text=Allow access?');
  await page.getByRole('button', { name: 'Allow' }).click();
  const back = await client.next();
  t.equal(back.get('state'), 'client-state');
  const tokens = await postAsClient(
    `${issuer}/oauth2/token`,
    { id: 'mcp-client', secret: SECRET },
    {
      grant_type: 'authorization_code',
      code: back.get('code') as string,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    },
  );
  t.equal(tokens.status, 200, JSON.stringify(tokens.body));
  const sub = decodeJwt(tokens.body.access_token as string).sub as string;
  t.match(sub, /^fed_/);
  t.equal(decodeJwt(tokens.body.id_token as string).sub, sub);
  const userinfo = await fetch(`${issuer}/oauth2/userinfo`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
  t.same(await userinfo.json(), {
    sub,
    email: 'octocat@acme.example',
    email_verified: true,
    name: 'The Octocat',
    preferred_username: 'octocat',
    picture: 'https://avatars.githubusercontent.com/u/583231?v=4',
  });
  t.equal(github.requestsTo('web', '/login/oauth/authorize')[0]?.query.get('scope'), 'read:user user:email read:org');

  github.signIn(outsider);
  await throughGithub(browser, pkcePair().challenge);
  t.same(Object.fromEntries(await client.next()), {
    error: 'access_denied',
    error_description: 'the identity provider signed the user in, but this server does not let that user sign in',
    state: 'client-state',
    iss: issuer,
  });
});

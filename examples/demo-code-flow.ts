import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DEMO_CREDENTIALS_FILE } from '../src/dev-credentials.js';
import { decodeEntities, demoPassword, FormBrowser, pageForm, pageMessage, runDemo, UsageError } from './demo-browser.js';

/**
 * The browser's part of the authorization code flow, for trying `npm run dev` from a shell:
 * it opens the authorization URL, signs in on the login page, clicks Allow on the consent
 * page, and prints the code from the redirect as shell lines to eval:
 *
 *   eval "$(npm run -s demo:code-flow)"                 # CODE=… VERIFIER=… (demo-client, PKCE S256)
 *   eval "$(npm run -s demo:code-flow -- "$URL")"       # CODE=… for an authorization URL you built
 *
 * Nothing listens at the redirect URI: like a user copying the code from the address bar,
 * it reads the code from the Location header and does not follow it. Development only.
 */
const USAGE = `usage: npm run -s demo:code-flow -- [AUTHORIZATION_URL] [--issuer URL] [--client-id ID] [--scope "a b"]
         [--resource URI]... [--username NAME]
Without AUTHORIZATION_URL it builds one for --client-id (demo-client) with PKCE (S256) and prints
CODE=… and VERIFIER=…; with one it prints CODE=…. The password is $PASSWORD, else the one
npm run dev wrote to ${DEMO_CREDENTIALS_FILE}.`;

interface AuthorizationRequest {
  readonly url: URL;
  readonly username: string;
  /** Set when this script made the PKCE pair. */
  readonly verifier?: string;
}

function authorizationRequest(args: string[]): AuthorizationRequest {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      issuer: { type: 'string', default: process.env.ISSUER ?? 'http://localhost:3000' },
      'client-id': { type: 'string', default: 'demo-client' },
      scope: { type: 'string', default: 'read' },
      resource: { type: 'string', multiple: true, default: [] },
      username: { type: 'string', default: 'demo' },
    },
  });
  if (positionals.length > 1) throw new UsageError('one authorization URL at most');
  if (positionals[0] !== undefined) {
    if (!URL.canParse(positionals[0])) throw new UsageError(`not a URL: ${positionals[0]}`);
    return { url: new URL(positionals[0]), username: values.username };
  }
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL('/oauth2/authorize', values.issuer);
  const params: [string, string][] = [
    ['response_type', 'code'],
    ['client_id', values['client-id']],
    ['scope', values.scope],
    ['state', randomBytes(8).toString('base64url')],
    ['code_challenge', createHash('sha256').update(verifier).digest('base64url')],
    ['code_challenge_method', 'S256'],
    ...values.resource.map((resource): [string, string] => ['resource', resource]),
  ];
  url.search = new URLSearchParams(params).toString();
  return { url, username: values.username, verifier };
}

/** Signs in and allows; returns the redirect URI with the answer, as the browser would be sent there. */
async function approve(url: URL, username: string, password: string): Promise<URL> {
  const browser = new FormBrowser();
  let res = await browser.request(url);
  let signInSent = false;
  for (let step = 0; step < 6; step++) {
    const location = res.headers.get('location');
    if (location !== null) {
      const next = new URL(location, url);
      if (next.origin !== url.origin) return next;
      url = next;
      res = await browser.request(url);
      continue;
    }
    const html = await res.text();
    const form = pageForm(html, url);
    const isLoginPage = form !== undefined && html.includes('name="password"');
    if (isLoginPage && signInSent) throw new Error(`sign-in as ${username} refused: ${decodeEntities(pageMessage(html))}`);
    if (!form) throw new Error(`the authorization server answered ${res.status}: ${decodeEntities(pageMessage(html))}`);
    if (form.action.origin !== url.origin) {
      // response_mode=form_post: the page posts the answer to the client; read it from the form.
      form.action.search = new URLSearchParams(form.hidden).toString();
      return form.action;
    }
    signInSent ||= isLoginPage;
    res = await browser.request(form.action, { ...form.hidden, ...(isLoginPage ? { username, password } : { decision: 'allow' }) });
  }
  throw new Error('the authorization server never sent the browser back to the client');
}

/** The code comes from a server's redirect and is eval'ed: quoted, whatever it holds. */
const shellQuoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

async function main(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const request = authorizationRequest(args);
  const redirect = await approve(request.url, request.username, await demoPassword(request.url));
  const answer = new URLSearchParams(redirect.search || redirect.hash.slice(1));
  const code = answer.get('code');
  if (code === null) {
    const error = answer.get('error') ?? 'no code in the redirect';
    throw new Error(`${error}${answer.has('error_description') ? `: ${answer.get('error_description')}` : ''}`);
  }
  process.stderr.write(`signed in and allowed: the browser is sent to ${redirect.origin}${redirect.pathname} with the code\n`);
  process.stdout.write(`CODE=${shellQuoted(code)}\n${request.verifier ? `VERIFIER=${request.verifier}\n` : ''}`);
  return 0;
}

process.exitCode = await runDemo('demo:code-flow', USAGE, () => main(process.argv.slice(2)));

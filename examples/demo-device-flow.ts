import { parseArgs } from 'node:util';
import { DEMO_CREDENTIALS_FILE } from '../src/dev-credentials.js';
import { decodeEntities, demoPassword, FormBrowser, pageForm, pageMessage, runDemo, UsageError } from './demo-browser.js';

/**
 * The user's part of the device flow (RFC 8628 §3.3), for trying `npm run dev` from a shell
 * with no browser at hand: it opens /device, types the user code a device was given, signs in
 * on the login page and clicks Allow (or Deny) on the consent page, as a person would on their
 * phone. The device goes on polling by itself:
 *
 *   npm run -s demo:device-flow -- "$USER_CODE"
 *
 * Development only.
 */
const USAGE = `usage: npm run -s demo:device-flow -- USER_CODE [--issuer URL] [--username NAME] [--deny]
Opens --issuer's /device (http://localhost:3000), types USER_CODE, signs in as --username (demo) and
allows (denies with --deny). The password is $PASSWORD, else the one npm run dev wrote to ${DEMO_CREDENTIALS_FILE}.`;

/** Types the code, signs in, decides; returns the heading of the page it ended on. */
async function decide(issuer: string, userCode: string, username: string, decision: 'allow' | 'deny'): Promise<string> {
  const browser = new FormBrowser();
  let url = new URL('/device', issuer);
  const password = await demoPassword(url);
  let res = await browser.request(url);
  let codeSent = false;
  let signInSent = false;
  for (let step = 0; step < 8; step++) {
    const location = res.headers.get('location');
    if (location !== null) {
      url = new URL(location, url);
      res = await browser.request(url);
      continue;
    }
    const html = await res.text();
    const form = pageForm(html, url);
    const heading = decodeEntities(/<h1>([^<]*)</.exec(html)?.[1] ?? '');
    if (!form) {
      if (res.status !== 200) throw new Error(`the authorization server answered ${res.status}: ${decodeEntities(pageMessage(html))}`);
      return heading;
    }
    const isCodePage = html.includes('name="user_code"');
    const isLoginPage = html.includes('name="password"');
    if ((isCodePage && codeSent) || (isLoginPage && signInSent)) throw new Error(decodeEntities(pageMessage(html)));
    codeSent ||= isCodePage;
    signInSent ||= isLoginPage;
    const fields = isCodePage ? { user_code: userCode } : isLoginPage ? { username, password } : { decision };
    res = await browser.request(form.action, { ...form.hidden, ...fields });
  }
  throw new Error('the pages never ended');
}

async function main(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      issuer: { type: 'string', default: process.env.ISSUER ?? 'http://localhost:3000' },
      username: { type: 'string', default: 'demo' },
      deny: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError('one user code');
  const heading = await decide(values.issuer, positionals[0] as string, values.username, values.deny ? 'deny' : 'allow');
  process.stderr.write(`signed in as ${values.username} and ${values.deny ? 'denied' : 'allowed'}: ${heading}\n`);
  return 0;
}

process.exitCode = await runDemo('demo:device-flow', USAGE, () => main(process.argv.slice(2)));

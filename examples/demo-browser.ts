import { readFile } from 'node:fs/promises';
import { demoCredentialsFile } from '../src/dev-credentials.js';

/**
 * What the demo scripts share (npm run -s demo:code-flow, npm run -s demo:device-flow): a
 * browser reduced to what our pages need, and the demo user's password. Development only.
 */

/** The demo password: $PASSWORD, else the file `npm run dev` wrote for the server at `authorizeUrl`'s port. */
export async function demoPassword(authorizeUrl: URL): Promise<string> {
  if (process.env.PASSWORD) return process.env.PASSWORD;
  const credentials = demoCredentialsFile(Number(authorizeUrl.port || (authorizeUrl.protocol === 'https:' ? 443 : 80)));
  const file = await readFile(credentials, 'utf8').catch(() => '');
  const password = /^PASSWORD=(.+)$/m.exec(file)?.[1];
  if (!password) throw new Error(`no password: set PASSWORD, or run npm run dev in this folder (it writes ${credentials})`);
  return password;
}

/** A browser reduced to what our pages need: cookies, and forms posted with their hidden fields. */
export class FormBrowser {
  private readonly cookies = new Map<string, string>();

  async request(url: URL, fields?: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: fields ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {}),
        ...(fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(fields ? { body: new URLSearchParams(fields) } : {}),
    }).catch((err: Error) => {
      throw new Error(`cannot reach ${url.origin} (${(err.cause as Error | undefined)?.message ?? err.message}): is npm run dev running?`);
    });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0] ?? '';
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }
}

/** Our pages escape every attribute value as a numeric character reference. */
export const decodeEntities = (value: string) => value.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** The post form of a page: where it goes and its hidden fields (interaction, csrf_token). */
export function pageForm(html: string, base: URL): { action: URL; hidden: Record<string, string> } | undefined {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (action === undefined) return undefined;
  const hidden: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    hidden[name as string] = decodeEntities(value as string);
  }
  return { action: new URL(decodeEntities(action), base), hidden };
}

export const pageMessage = (html: string) => /<p class="error"[^>]*>([^<]*)</.exec(html)?.[1] ?? /<h1>([^<]*)</.exec(html)?.[1] ?? '';

/** A mistake in the command line: the usage is printed, exit code 2. */
export class UsageError extends Error {}

/** Runs a demo's `main`: its exit code, or 2 after the usage for a command-line mistake, 1 for any other failure (said on stderr). */
export async function runDemo(name: string, usage: string, main: () => Promise<number>): Promise<number> {
  try {
    return await main();
  } catch (err) {
    process.stderr.write(`${name}: ${(err as Error).message}\n`);
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${usage}\n`);
      return 2;
    }
    return 1;
  }
}

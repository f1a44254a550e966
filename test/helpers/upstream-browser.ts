import type { FastifyInstance } from 'fastify';

/**
 * A browser for sign-ins through an upstream identity provider: one cookie jar per host, our
 * server reached through inject() at its issuer's origin, the upstream (and any other origin
 * it is told to follow) over real HTTP. It follows redirects only to those origins, so a
 * redirect to a client's redirect URI ends a walk there.
 */

export interface BrowserResponse {
  readonly status: number;
  /** The URL that was requested. */
  readonly url: URL;
  /** A redirect's Location, resolved against `url`. */
  readonly location: URL | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A form of a page: where it posts, its hidden fields and the first named submit button's value. */
export interface PageForm {
  readonly action: URL;
  readonly fields: Record<string, string>;
}

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCharCode(parseInt(code, 16)))
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? decodeEntities(match[1] as string) : undefined;
}

/** The forms of an HTML page, in order (hidden inputs and the first named button of each). */
export function pageForms(page: BrowserResponse): PageForm[] {
  return [...page.body.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map((match) => {
    const fields: Record<string, string> = {};
    for (const input of (match[2] as string).matchAll(/<input\b[^>]*>/g)) {
      const tag = input[0];
      const name = attribute(tag, 'name');
      if (attribute(tag, 'type') === 'hidden' && name !== undefined) fields[name] = attribute(tag, 'value') ?? '';
    }
    const button = /<button\b[^>]*\sname="[^"]*"[^>]*>/.exec(match[2] as string)?.[0];
    const buttonName = button && attribute(button, 'name');
    if (button && buttonName !== undefined) fields[buttonName] = attribute(button, 'value') ?? '';
    return { action: new URL(attribute(`<form${match[1] as string}>`, 'action') ?? '', page.url), fields };
  });
}

export class FlowBrowser {
  private readonly jars = new Map<string, Map<string, string>>();
  /** Every URL this browser requested, in order (to find a callback's code and state). */
  readonly history: URL[] = [];
  private ours: { readonly origin: string; readonly app?: FastifyInstance | undefined };
  private readonly followed: readonly string[];
  private readonly headers: Record<string, string>;

  constructor(options: {
    /**
     * Our server, reached with inject() at `origin` (the issuer's). Without `app` it is reached
     * over HTTP when `followed` lists its origin; else a redirect there ends a walk.
     */
    readonly ours: { readonly origin: string; readonly app?: FastifyInstance | undefined };
    /** The origins reached over HTTP and followed (the upstream's); no other origin is ever fetched. */
    readonly followed: readonly string[];
    /** Headers sent to our server with every request (Accept-Language, …). */
    readonly headers?: Record<string, string>;
  }) {
    this.ours = options.ours;
    this.followed = options.followed;
    this.headers = options.headers ?? {};
  }

  get(url: string | URL): Promise<BrowserResponse> {
    return this.request('GET', new URL(url, this.ours.origin));
  }

  post(url: string | URL, fields: Record<string, string>): Promise<BrowserResponse> {
    return this.request('POST', new URL(url, this.ours.origin), fields);
  }

  /** Our server restarted: the same origin (and cookies), served by `app` from now on. */
  useServer(app: FastifyInstance): void {
    this.ours = { origin: this.ours.origin, app };
  }

  /** Posts `form` with `extra` fields. */
  submit(form: PageForm, extra: Record<string, string> = {}): Promise<BrowserResponse> {
    return this.post(form.action, { ...form.fields, ...extra });
  }

  /** Follows redirects to our origin and the followed ones; stops at a page, or at a redirect elsewhere. */
  async follow(response: BrowserResponse, maxSteps = 20): Promise<BrowserResponse> {
    let current = response;
    for (let step = 0; step < maxSteps && this.followable(current); step++) current = await this.get(current.location as URL);
    return current;
  }

  /** Whether `response` is a redirect this browser follows. */
  followable(response: BrowserResponse): boolean {
    const target = response.location?.origin;
    return target !== undefined && ((target === this.ours.origin && this.ours.app !== undefined) || this.followed.includes(target));
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jar(new URL(origin).host).get(name);
  }

  setCookie(origin: string, name: string, value: string): void {
    this.jar(new URL(origin).host).set(name, value);
  }

  forget(origin: string, name: string): void {
    this.jar(new URL(origin).host).delete(name);
  }

  private jar(host: string): Map<string, string> {
    let jar = this.jars.get(host);
    if (!jar) this.jars.set(host, (jar = new Map()));
    return jar;
  }

  private cookieHeader(url: URL): Record<string, string> {
    const jar = this.jar(url.host);
    return jar.size ? { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } : {};
  }

  /** Keeps the cookies a response sets; one set to expire is removed. */
  private remember(url: URL, setCookies: readonly string[]): void {
    const jar = this.jar(url.host);
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const expired = attributes.some(
        (a) => /^max-age=(0|-\d+)$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()),
      );
      if (expired) jar.delete(name);
      else jar.set(name, pair.slice(eq + 1));
    }
  }

  private async request(method: 'GET' | 'POST', url: URL, fields?: Record<string, string>): Promise<BrowserResponse> {
    this.history.push(url);
    const body = fields && new URLSearchParams(fields).toString();
    const headers = {
      ...this.cookieHeader(url),
      ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    };
    let status: number;
    let received: Record<string, string>;
    let setCookies: string[];
    let text: string;
    const app = url.origin === this.ours.origin ? this.ours.app : undefined;
    if (app) {
      const res = await app.inject({
        method,
        url: `${url.pathname}${url.search}`,
        headers: { ...this.headers, ...headers },
        remoteAddress: '203.0.113.7',
        ...(body !== undefined ? { payload: body } : {}),
      });
      status = res.statusCode;
      received = Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, String(value)]));
      const raw = res.headers['set-cookie'];
      setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      text = res.body;
    } else {
      // Only the origins this browser follows are ever fetched: a client's redirect URI never is.
      if (!this.followed.includes(url.origin)) throw new Error(`${url.origin} is not an origin of this test`);
      const res = await fetch(url, { method, redirect: 'manual', headers, ...(body !== undefined ? { body } : {}) });
      status = res.status;
      received = Object.fromEntries(res.headers);
      setCookies = res.headers.getSetCookie();
      text = await res.text();
    }
    this.remember(url, setCookies);
    const location = received.location === undefined ? undefined : new URL(received.location, url);
    return { status, url, location, headers: received, body: text };
  }
}

/** What the user does at the upstream's pages: signs in as `login` (its account's sub), or cancels on a page. */
export interface UpstreamVisit {
  readonly login: string;
  readonly cancel?: 'login' | 'consent' | undefined;
}

/**
 * From a redirect to the upstream (`upstreamOrigin`), through its login and consent pages
 * (each skipped when its session or grant makes it unnecessary), to the redirect that leaves
 * it (our callback, not followed), or the page where it stopped.
 */
export async function visitUpstream(
  browser: FlowBrowser,
  response: BrowserResponse,
  upstreamOrigin: string,
  visit: UpstreamVisit,
): Promise<BrowserResponse> {
  let current = response;
  for (let step = 0; step < 20; step++) {
    if (current.location?.origin === upstreamOrigin) {
      current = await browser.get(current.location);
      continue;
    }
    if (current.url.origin !== upstreamOrigin || current.status !== 200) return current;
    const form = pageForms(current)[0];
    const prompt = form?.fields.prompt;
    if (!form || (prompt !== 'login' && prompt !== 'consent')) return current;
    if (visit.cancel === prompt) {
      const abort = /<a href="([^"]*\/abort)"/.exec(current.body)?.[1];
      if (abort === undefined) throw new Error('no cancel link on the upstream page');
      current = await browser.get(new URL(abort, current.url));
    } else current = await browser.submit(form, prompt === 'login' ? { login: visit.login, password: 'any-password' } : {});
  }
  throw new Error('too many steps at the upstream');
}

import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** Drives the authorization endpoint through inject() like a browser: cookies, forms, redirects. */
export class InjectBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly ip = '203.0.113.7',
    /** Sent with every request (Accept-Language, …). */
    private readonly fixedHeaders: Record<string, string> = {},
  ) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: this.headers(), remoteAddress: this.ip }));
  }

  /** A form POST (a list: the field repeated); `headers` adds to what a browser sends (an Origin, Sec-Fetch-Site…). */
  async post(
    url: string,
    fields: Record<string, string | readonly string[]>,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const payload = Object.entries(fields).flatMap(([name, value]): [string, string][] =>
      typeof value === 'string' ? [[name, value]] : value.map((v): [string, string] => [name, v]),
    );
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: new URLSearchParams(payload).toString(),
        remoteAddress: this.ip,
      }),
    );
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** A cookie as if a response had set it. */
  setCookie(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  forget(name: string): void {
    this.cookies.delete(name);
  }

  private headers(): Record<string, string> {
    const cookie = this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
    return { ...this.fixedHeaders, ...cookie };
  }

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number }[]) {
      // A cookie set to expire at once is gone, as a browser drops it.
      if (c.maxAge === 0) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }
}

/** The hidden fields of the (first) form on a page. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] as string] = decodeEntities(match[2] as string);
  }
  return fields;
}

export function formAction(html: string): string {
  return decodeEntities(/<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '');
}

function decodeEntities(value: string): string {
  return value.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The parameters of an authorization request for a code, with PKCE (S256) and state `s`. */
export function codeRequest(clientId: string, redirectUri: string, challenge: string, scope = 'read'): Record<string, string> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
}

/** The authorization endpoint's URL with `params`, and one `resource` parameter per entry of `resources` (RFC 8707). */
export function authorizeUrl(params: Record<string, string>, resources: readonly string[] = []): string {
  const query = new URLSearchParams(params);
  for (const resource of resources) query.append('resource', resource);
  return `/oauth2/authorize?${query.toString()}`;
}

/** Signs in and approves (or denies); returns the final response (the redirect to the client). */
export async function signInAndDecide(
  browser: InjectBrowser,
  params: Record<string, string>,
  credentials: { username: string; password: string },
  decision: 'allow' | 'deny' = 'allow',
  resources: readonly string[] = [],
): Promise<LightMyRequestResponse> {
  const login = await browser.get(authorizeUrl(params, resources));
  if (login.statusCode !== 200) return login;
  const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...credentials });
  if (afterLogin.statusCode !== 303) return afterLogin;
  const consent = await browser.get(afterLogin.headers.location as string);
  if (consent.statusCode !== 200) return consent;
  return browser.post(formAction(consent.body), { ...formFields(consent.body), decision });
}

/** The parameters of a redirect Location, from its query or its fragment. */
export function redirectParams(location: string, part: 'query' | 'fragment' = 'query'): Record<string, string> {
  const url = new URL(location);
  return Object.fromEntries(new URLSearchParams(part === 'query' ? url.search : url.hash.slice(1)));
}

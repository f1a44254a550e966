import { formAction, formFields } from './browser-flow.js';

/** A cookie-keeping browser over real HTTP (fetch), following no redirects by itself. */
export class HttpBrowser {
  private readonly cookies = new Map<string, string>();

  async request(url: string, fields?: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: fields ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(fields ? { body: new URLSearchParams(fields).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      this.cookies.set((pair ?? '').slice(0, eq), (pair ?? '').slice(eq + 1));
    }
    return res;
  }
}

/** Signs in and approves at `base`; returns the Location the browser is sent to (by the consent POST, or at once when consent is remembered). */
export async function approveOverHttp(
  base: string,
  authorizeQuery: Record<string, string>,
  credentials: { username: string; password: string },
): Promise<string> {
  const browser = new HttpBrowser();
  const login = await (await browser.request(`${base}/oauth2/authorize?${new URLSearchParams(authorizeQuery)}`)).text();
  const afterLogin = await browser.request(`${base}${formAction(login)}`, { ...formFields(login), ...credentials });
  if (afterLogin.status !== 303) throw new Error(`login answered ${afterLogin.status}`);
  const page = await browser.request(`${base}${afterLogin.headers.get('location')}`);
  // Consent this user gave the client before is remembered: the response comes at once.
  if (page.status === 302) return page.headers.get('location') as string;
  const consent = await page.text();
  const decided = await browser.request(`${base}${formAction(consent)}`, { ...formFields(consent), decision: 'allow' });
  if (decided.status !== 303) throw new Error(`consent answered ${decided.status}`);
  return decided.headers.get('location') as string;
}

/**
 * The user's side of the device flow at `base` (RFC 8628 §3.3): the code typed at /device, a
 * sign-in, the consent page's `decision`; returns the last page's status and text.
 */
export async function decideDeviceOverHttp(
  base: string,
  userCode: string,
  credentials: { username: string; password: string },
  decision: 'allow' | 'deny' = 'allow',
): Promise<{ status: number; text: string }> {
  const browser = new HttpBrowser();
  const form = await (await browser.request(`${base}/device`)).text();
  const login = await (await browser.request(`${base}${formAction(form)}`, { ...formFields(form), user_code: userCode })).text();
  const afterLogin = await browser.request(`${base}${formAction(login)}`, { ...formFields(login), ...credentials });
  if (afterLogin.status !== 303) throw new Error(`login answered ${afterLogin.status}`);
  const consent = await (await browser.request(`${base}${afterLogin.headers.get('location')}`)).text();
  const decided = await browser.request(`${base}${formAction(consent)}`, { ...formFields(consent), decision });
  return { status: decided.status, text: await decided.text() };
}

/** A back-channel POST over HTTP (a form, HTTP Basic client authentication); the status and the JSON answer ({} when empty). */
export async function postAsClient(
  url: string,
  client: { id: string; secret: string },
  params: Record<string, string>,
  timeoutMs = 10_000,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(params),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, string> };
}

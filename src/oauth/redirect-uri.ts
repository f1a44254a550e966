/**
 * RFC 6749 §3.1.2.3: "If redirection URI(s) were registered [...] the authorization
 * server MUST compare and match the value received against at least one of the
 * registered redirection URIs". We compare by exact string equality (RFC 9700 §4.1.3):
 * no normalization of case, ports, trailing slashes or query. The one exception is the
 * port of a loopback IP literal (RFC 8252 §7.3), below.
 */

export type RedirectUriResolution =
  { readonly ok: true; readonly redirectUri: string; readonly sent: boolean } | { readonly ok: false; readonly reason: string };

/**
 * `http://127.0.0.1` or `http://[::1]`, an optional port, then nothing or a path or query.
 * Written as a pattern over the raw string, not through the URL parser, so the parts
 * other than the port still compare as sent (no normalization of case, dots or escapes),
 * and userinfo (`http://127.0.0.1:80@evil.example/`) never parses as a loopback host.
 */
const LOOPBACK_IP_URI = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::([1-9][0-9]{0,4}))?([/?].*)?$/s;

function loopbackParts(uri: string): { host: string; port: number | undefined; rest: string } | undefined {
  const match = LOOPBACK_IP_URI.exec(uri);
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65535) return undefined;
  return { host: match[1] as string, port, rest: match[3] ?? '' };
}

/**
 * RFC 8252 §7.3: "The authorization server MUST allow any port to be specified at the
 * time of the request for loopback IP redirect URIs, to accommodate clients that obtain
 * an available ephemeral port from the operating system at the time of the request."
 * Only IP literals over http: `localhost` is NOT RECOMMENDED (§8.3) and stays exact, as
 * does https.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const allowed = loopbackParts(registered);
  const sent = loopbackParts(requested);
  return allowed !== undefined && sent !== undefined && allowed.host === sent.host && allowed.rest === sent.rest;
}

export function resolveRedirectUri(requested: string | undefined, registered: readonly string[]): RedirectUriResolution {
  if (requested !== undefined) {
    return registered.some((uri) => redirectUriMatches(uri, requested))
      ? { ok: true, redirectUri: requested, sent: true }
      : { ok: false, reason: 'the redirect_uri is not registered for this client' };
  }
  // §3.1.2.3: with several registered URIs the request must name one.
  if (registered.length === 1) return { ok: true, redirectUri: registered[0] as string, sent: false };
  return { ok: false, reason: 'redirect_uri is required: this client registered several' };
}

/**
 * RFC 6749 §3.1.2.3: "If redirection URI(s) were registered [...] the authorization
 * server MUST compare and match the value received against at least one of the
 * registered redirection URIs". We compare by exact string equality (RFC 9700 §4.1.3):
 * no normalization of case, ports, trailing slashes or query.
 */

export type RedirectUriResolution =
  { readonly ok: true; readonly redirectUri: string; readonly sent: boolean } | { readonly ok: false; readonly reason: string };

export function resolveRedirectUri(requested: string | undefined, registered: readonly string[]): RedirectUriResolution {
  if (requested !== undefined) {
    return registered.includes(requested)
      ? { ok: true, redirectUri: requested, sent: true }
      : { ok: false, reason: 'the redirect_uri is not registered for this client' };
  }
  // §3.1.2.3: with several registered URIs the request must name one.
  if (registered.length === 1) return { ok: true, redirectUri: registered[0] as string, sent: false };
  return { ok: false, reason: 'redirect_uri is required: this client registered several' };
}

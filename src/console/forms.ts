/**
 * Where a change to the console or the account page may come from: a page of this server.
 * Each POST carries the CSRF token of the signed forms (src/session/: a MAC of the browser's
 * CSRF cookie), and this check comes first: a browser says where a request comes from
 * (Fetch Metadata's Sec-Fetch-Site, and Origin: our pages' referrer policy, `same-origin`,
 * has it sent), and anything but this server's origin is refused. A client that sends
 * neither header (no browser) still needs the token.
 */
export function fromOurOrigin(
  headers: { readonly origin?: string | undefined; readonly 'sec-fetch-site'?: string | undefined },
  origin: string,
): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  // `null` (an opaque origin: a sandboxed frame, a page of another origin that hides it) is not ours either.
  return headers.origin === undefined || headers.origin === origin;
}

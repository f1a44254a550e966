/** What the login and consent pages show of a client: its name, logo and where the answer goes. */

/** What the user is shown about a client nobody registered. */
export interface UnregisteredClient {
  /** The host serving the client's metadata document (its client_id); undefined: the client registered itself (RFC 7591). */
  readonly clientIdHost: string | undefined;
}

/** Where the answer of this request goes. */
export interface RedirectTarget {
  /** The host of the redirect URI (or the scheme of a private-use URI). */
  readonly host: string;
  /** The redirect URI is on this computer (loopback): any local program could be listening there. */
  readonly loopback: boolean;
}

const LOOPBACK_HOST = /^(?:127(?:\.\d{1,3}){3}|\[::1\]|localhost|.+\.localhost)$/i;

/** The host part a user can check: the URL's host (IDN in punycode, so look-alikes show), or the scheme of a private-use URI. */
export function redirectTargetOf(uri: string): RedirectTarget {
  const url = new URL(uri);
  return url.host !== '' ? { host: url.host, loopback: LOOPBACK_HOST.test(url.hostname) } : { host: url.protocol, loopback: false };
}

/** A client described by its metadata document (`clientId` is its URL), or, without `clientId`, one that registered itself. */
export function unregisteredClient(clientId: string | undefined): UnregisteredClient {
  return { clientIdHost: clientId === undefined ? undefined : redirectTargetOf(clientId).host };
}

import type { Client } from './registry.js';

/**
 * Which web origins may call the token and revocation endpoints from a browser (CORS):
 * the origins of a public client's redirect URIs, plus the `allowed_origins` any client
 * registers. Origins are compared as browsers send them in `Origin` (the ASCII
 * serialization of RFC 6454 §6.2: lower-case scheme and host, no default port, no path).
 */

/** The serialized origin of an http or https URI; undefined for any other scheme or a malformed URI. */
export function webOriginOf(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
}

/** True when `value` is already an origin exactly as a browser serializes it: `scheme://host[:port]`. */
export function isSerializedWebOrigin(value: string): boolean {
  return webOriginOf(value) === value;
}

/** The origins a client's metadata allows, computed once when the client is loaded. */
export function originsAllowedBy(metadata: {
  readonly isPublic: boolean;
  readonly redirectUris: readonly string[];
  readonly allowedOrigins: readonly string[];
}): ReadonlySet<string> {
  const fromRedirects = metadata.isPublic ? metadata.redirectUris.map(webOriginOf) : [];
  return new Set([...fromRedirects, ...metadata.allowedOrigins].filter((origin): origin is string => origin !== undefined));
}

export function allowedOrigins(client: Client): ReadonlySet<string> {
  return client.corsOrigins;
}

/**
 * Whether some registered client allows `origin`: all a CORS preflight can ask, since it
 * carries no credentials and no body (Fetch standard, "CORS-preflight request"). Computed
 * from the registry it is given, so a reloaded registry answers with its own clients.
 */
export function anyClientAllows(clients: { all(): readonly Client[] }, origin: string): boolean {
  return clients.all().some((client) => client.corsOrigins.has(origin));
}

import { InvalidClientMetadata, InvalidRedirectUri, type OAuthError } from '../errors/index.js';

/**
 * Which redirect URIs a dynamically registered client may have (RFC 7591 §2, RFC 8252,
 * RFC 9700 §4.1). Only the kinds below; matching at the authorization endpoint stays
 * exact string equality (with RFC 8252 §7.3's any port for loopback IP literals).
 */

export type ApplicationType = 'web' | 'native';

/**
 * - `https`: a web client's only kind; a native app may claim one too (RFC 8252 §7.2).
 * - `loopback`: `http` to 127.0.0.1, [::1] or localhost, where a native app listens (RFC 8252
 *   §7.3). `localhost` is NOT RECOMMENDED (§8.3) and matches exactly, port included; it is
 *   accepted because widely used MCP clients register `http://localhost:<port>/callback`.
 * - `private_use`: a custom scheme such as `com.example.app:/cb` (RFC 8252 §7.1), native only.
 */
type RedirectKind = 'https' | 'loopback' | 'private_use';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes that run code, read local data or are not navigations to an app (RFC 9700 §4.1, §4.11.2). */
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'filesystem:', 'ftp:', 'ws:', 'wss:']);
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
export const MAX_REDIRECT_URI_LENGTH = 2000;

function kindOf(uri: string, field: string, fail: (message: string) => OAuthError = (m) => new InvalidRedirectUri(m)): RedirectKind {
  const problem = (message: string) => fail(`${field}: ${message}`);
  if (uri.length > MAX_REDIRECT_URI_LENGTH) throw problem(`must be at most ${MAX_REDIRECT_URI_LENGTH} characters`);
  if (/[\s\p{Cc}]/u.test(uri)) throw problem('must not contain spaces or control characters');
  if (!SCHEME.test(uri) || !URL.canParse(uri)) throw problem('must be an absolute URI');
  // RFC 6749 §3.1.2: "The endpoint URI MUST NOT include a fragment component."
  if (uri.includes('#')) throw problem('must not have a fragment (RFC 6749 section 3.1.2)');
  const url = new URL(uri);
  if (REFUSED_SCHEMES.has(url.protocol)) throw problem(`the scheme ${url.protocol} is not allowed for redirect URIs`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'private_use';
  if (url.username !== '' || url.password !== '') throw problem('must not contain user information');
  if (url.hostname.includes('*')) throw problem('wildcards are not supported: redirect URIs are compared exactly');
  if (url.protocol === 'https:') return 'https';
  if (LOOPBACK_HOSTS.has(url.hostname)) return 'loopback';
  throw problem('http is allowed only for a loopback address (127.0.0.1, [::1] or localhost); use https');
}

/**
 * Checks every redirect URI and resolves the application type. Without `application_type`
 * (MCP clients rarely send it), a client with any non-https URI is `native`, else `web`.
 * A `web` client has only https URIs (RFC 8252 §8.1 keeps loopback and custom schemes to
 * native apps).
 */
export function checkRedirectUris(uris: readonly string[], declared: ApplicationType | undefined): ApplicationType {
  const kinds = uris.map((uri, index) => kindOf(uri, `redirect_uris[${index}]`));
  const applicationType = declared ?? (kinds.every((kind) => kind === 'https') ? 'web' : 'native');
  if (applicationType === 'web') {
    const index = kinds.findIndex((kind) => kind !== 'https');
    if (index >= 0)
      throw new InvalidRedirectUri(
        `redirect_uris[${index}]: a web client's redirect URIs must use https (register application_type native for a loopback or custom-scheme URI)`,
      );
  }
  return applicationType;
}

/**
 * Where a client describing itself may send the browser after signing out
 * (`post_logout_redirect_uris`, RP-Initiated Logout 1.0 §3.1): the same kinds as its redirect
 * URIs, by its application type, compared exactly when used. Not a redirect URI, so a
 * problem is `invalid_client_metadata` (Registration 1.0 §3.3 keeps `invalid_redirect_uri`
 * for `redirect_uris`).
 */
export function checkPostLogoutRedirectUris(uris: readonly string[], applicationType: ApplicationType): void {
  const fail = (message: string) => new InvalidClientMetadata(message);
  uris.forEach((uri, index) => {
    const field = `post_logout_redirect_uris[${index}]`;
    if (kindOf(uri, field, fail) !== 'https' && applicationType === 'web')
      throw fail(`${field}: a web client's post-logout redirect URIs must use https (as its redirect URIs)`);
  });
}

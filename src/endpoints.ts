/**
 * The one table of the server's endpoints: each one's path below the issuer, and from it
 * the path a route registers and the URL metadata documents publish. Nothing else writes
 * an endpoint's path (routes, discovery, the services that name a URL all read it here).
 */

/** Paths below the issuer's own path (ISSUER https://as.example.com/tenant → /tenant/oauth2/token). */
const BELOW_ISSUER = {
  authorize: '/oauth2/authorize',
  login: '/oauth2/authorize/login',
  consent: '/oauth2/authorize/consent',
  /** The login page's "Continue with …" form: starts a sign-in at an upstream provider. */
  upstream: '/oauth2/authorize/upstream',
  logout: '/oauth2/logout',
  token: '/oauth2/token',
  revocation: '/oauth2/revoke',
  introspection: '/oauth2/introspect',
  registration: '/oauth2/register',
  /** RFC 8628 §3.1: where a device starts a device authorization. */
  deviceAuthorization: '/oauth2/device_authorization',
  /** RFC 8628 §3.2 verification_uri: the page where the user enters the user code ("short and easy to remember"). */
  device: '/device',
  userinfo: '/oauth2/userinfo',
  jwks: '/.well-known/jwks.json',
  /** OpenID Connect Discovery 1.0 §4: the issuer with "/.well-known/openid-configuration" appended. */
  openidConfiguration: '/.well-known/openid-configuration',
  /** The admin API: a protected resource of this server, its URL the resource identifier (RFC 8707, RFC 9728). */
  admin: '/admin/v1',
  /** The console: the pages of administrators (a built-in client of this server); its redirect URI is `{console}/callback`. */
  console: '/admin',
  /** The account page of every user who signs in here: who they are, the apps they connected. */
  account: '/account',
} as const;

export type EndpointName = keyof typeof BELOW_ISSUER;

/** Paths at the host's root whatever the issuer's path: health checks and the metrics scrape. */
export const HOST_PATHS = { health: '/healthz', readiness: '/readyz', metrics: '/metrics' } as const;

/** Below it, one callback per upstream identity provider: `/oauth2/upstream/{id}/callback`. */
const UPSTREAM_CALLBACK = '/oauth2/upstream';

/** RFC 8414 §3: "inserting a well-known URI string into the authorization server's issuer identifier between the host component and the path component". */
const AUTHORIZATION_SERVER_METADATA = '/.well-known/oauth-authorization-server';

export interface Endpoints {
  /** The issuer identifier, without a trailing slash. */
  readonly issuer: string;
  /** Where the route of `name` listens. */
  path(name: EndpointName): string;
  /** The absolute URL of `name`, as metadata and responses name it. */
  url(name: EndpointName): string;
  /** A client's configuration endpoint (RFC 7592 §1): below the registration endpoint. */
  clientConfigurationUrl(clientId: string): string;
  /** Where an upstream identity provider sends the browser back: the redirect URI registered there. */
  upstreamCallbackPath(providerId: string): string;
  upstreamCallbackUrl(providerId: string): string;
  /** Where an upstream provider sends the browser back after its own sign-out (`end_session`). */
  upstreamSignedOutPath(providerId: string): string;
  upstreamSignedOutUrl(providerId: string): string;
  /** Where the RFC 8414 metadata document is served. */
  readonly authorizationServerMetadataPath: string;
  /** The path the browser session's cookies are sent to: every page of the authorization endpoint, sign-out and /device. */
  readonly browserCookiePath: string;
  /** Whether `path` is one of the pages a browser sees (they answer errors with a page, not JSON): the console's and /account too. */
  isBrowserPath(path: string): boolean;
}

export function endpointsOf(issuer: string): Endpoints {
  const origin = issuer.replace(/\/+$/, '');
  const prefix = new URL(origin).pathname.replace(/\/+$/, '');
  const path = (name: EndpointName) => `${prefix}${BELOW_ISSUER[name]}`;
  const authorize = path('authorize');
  const consolePath = path('console');
  const adminApi = path('admin');
  const below = (candidate: string, base: string) => candidate === base || candidate.startsWith(`${base}/`);
  return {
    issuer: origin,
    path,
    url: (name) => `${origin}${BELOW_ISSUER[name]}`,
    clientConfigurationUrl: (clientId) => `${origin}${BELOW_ISSUER.registration}/${clientId}`,
    upstreamCallbackPath: (providerId) => `${prefix}${UPSTREAM_CALLBACK}/${providerId}/callback`,
    upstreamCallbackUrl: (providerId) => `${origin}${UPSTREAM_CALLBACK}/${providerId}/callback`,
    upstreamSignedOutPath: (providerId) => `${prefix}${UPSTREAM_CALLBACK}/${providerId}/signed-out`,
    upstreamSignedOutUrl: (providerId) => `${origin}${UPSTREAM_CALLBACK}/${providerId}/signed-out`,
    authorizationServerMetadataPath: `${AUTHORIZATION_SERVER_METADATA}${prefix}`,
    browserCookiePath: `${prefix}/`,
    isBrowserPath: (candidate) =>
      candidate === path('device') ||
      candidate === authorize ||
      candidate.startsWith(`${authorize}/`) ||
      candidate === path('logout') ||
      candidate.startsWith(`${prefix}${UPSTREAM_CALLBACK}/`) ||
      (below(candidate, consolePath) && !below(candidate, adminApi)) ||
      below(candidate, path('account')),
  };
}

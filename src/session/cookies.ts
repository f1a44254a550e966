/**
 * The cookies the browser pages set, named and scoped in one place. With an https issuer
 * they carry the `__Host-` prefix, which browsers enforce: no other host (a sibling
 * subdomain) and no plain-http page can set or shadow them. With an http issuer (local
 * development) a browser would refuse such a cookie, so they keep plain names, scoped to
 * the issuer's path (its /oauth2/ pages, /device, the console at /admin and /account).
 */

/** RFC 6265bis §4.1.3.2: "__Host-" cookies "will have been set with a Secure attribute, a Path attribute with a value of /, and no Domain attribute". */
const HOST_PREFIX = '__Host-';

export interface BrowserCookies {
  /** The signed session (who signed in, when). */
  readonly session: string;
  /** The browser's random secret: CSRF tokens and the binding of an upstream sign-in are MACs of it. */
  readonly csrf: string;
  /** The console's session (src/console/session.ts): its tokens, sealed. */
  readonly console: string;
  /** The console's sign-in in progress: state, nonce and PKCE verifier, sealed, until its callback. */
  readonly consoleSignIn: string;
  readonly path: string;
  readonly secure: boolean;
}

/**
 * The names and scope of the cookies for `issuer`; `pagesPath` is where its pages are
 * below the host (endpoints.browserCookiePath), used when the issuer is http.
 */
export function browserCookiesFor(issuer: string, pagesPath: string): BrowserCookies {
  const secure = new URL(issuer).protocol === 'https:';
  const prefix = secure ? HOST_PREFIX : '';
  return {
    session: `${prefix}oauth_session`,
    csrf: `${prefix}oauth_csrf`,
    console: `${prefix}oauth_console`,
    consoleSignIn: `${prefix}oauth_console_sign_in`,
    path: secure ? '/' : pagesPath,
    secure,
  };
}

/**
 * RFC 9449 §4.3: "servers SHOULD employ syntax-based normalization (Section 6.2.2 of
 * [RFC3986]) and scheme-based normalization (Section 6.2.3 of [RFC3986]) before
 * comparing the htu claim". The WHATWG URL parser lowercases scheme and host, drops a
 * default port, removes dot segments and gives an empty http(s) path "/"; what it leaves
 * is percent-encoding: hex digits upper-cased, unreserved characters decoded (§6.2.2.1-2).
 * Query and fragment are dropped ("ignoring any query and fragment parts").
 */
const UNRESERVED = /[A-Za-z0-9\-._~]/;

function normalizedPercentEncoding(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** The comparable form of an htu value or request URI; undefined when it is not an absolute http(s) URI. */
export function normalizedHtu(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return `${url.protocol}//${url.host}${normalizedPercentEncoding(url.pathname)}`;
}

import type { IncomingMessage } from 'node:http';
import { FetchFailed } from './errors.js';
import { type FetchPolicy, guardedRequest, readBody, settleOnce, targetOf, USER_AGENT } from './guard.js';

export type { FetchPolicy, ResolvedAddress, Resolver } from './guard.js';

export interface FetchedJson {
  readonly body: unknown;
  /** The response's Cache-Control and Age header fields, for the caller's cache (RFC 9111). */
  readonly cacheControl: string | undefined;
  readonly age: string | undefined;
}

/**
 * The one way this server fetches a URL a client controls (Client ID Metadata Documents;
 * later the JWKS URIs of clients). Written on node:http(s) rather than with a library
 * such as request-filtering-agent: the check has to sit in the connection's own DNS
 * lookup (so the address checked is the address connected to, and DNS rebinding between
 * a check and the connect cannot happen), tests have to inject the resolver, and both
 * take a dozen lines over Node's `lookup` option and `net.BlockList`.
 *
 * What it does: https only; every resolved address checked against the special-use
 * ranges before the socket connects (a name with any such address is refused outright);
 * no redirects followed; no cookies, no credentials, no compression; one deadline for
 * the whole exchange; at most `maxBytes` of body; 200 and a JSON media type required.
 */

/** RFC 8259 §11 `application/json`, or a structured syntax suffix `application/<something>+json` (RFC 6839 §3.1). */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json$/;

/** Checks the head of the response; undefined when the body may be read. */
function refusedResponse(response: IncomingMessage, maxBytes: number): FetchFailed | undefined {
  const status = response.statusCode ?? 0;
  // CIMD §5: "The authorization server MUST treat all other HTTP status codes as an error
  // response. The authorization server MUST NOT automatically follow HTTP redirects".
  if (status !== 200) {
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    return new FetchFailed('status', `answered HTTP ${status}${redirect}, not 200`);
  }
  const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') return new FetchFailed('content_encoding', `answered with Content-Encoding ${encoding}; none was accepted`);
  const mediaType = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!JSON_MEDIA_TYPE.test(mediaType)) return new FetchFailed('content_type', `answered ${mediaType || 'no content type'}, not JSON`);
  const length = Number(response.headers['content-length'] ?? 0);
  if (length > maxBytes) return new FetchFailed('too_large', `the body is larger than ${maxBytes} bytes`);
  return undefined;
}

function parseJson(chunks: readonly Buffer[]): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
  } catch (err) {
    throw new FetchFailed('malformed_json', 'the body is not JSON in UTF-8', { cause: err });
  }
}

/**
 * GETs `url` under `policy` and parses its JSON body. Rejects with FetchFailed, whose
 * `code` says why; never follows a redirect.
 */
export function fetchJson(url: string, policy: FetchPolicy): Promise<FetchedJson> {
  let target: URL;
  try {
    target = targetOf(url, policy);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  return new Promise<FetchedJson>((resolve, reject) => {
    const settle = settleOnce<FetchedJson>(
      resolve,
      reject,
      () => request,
      () => deadline,
    );
    // No Cookie, no Authorization: nothing but what the request needs.
    const request = guardedRequest(target, policy, 'GET', {
      accept: 'application/json',
      'accept-encoding': 'identity',
      'user-agent': USER_AGENT,
    });
    // Until the connection (and its TLS handshake) is up, a failure is the host's, not the URL's.
    let connected = false;
    request.on('socket', (socket) => socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () => (connected = true)));
    const deadline = setTimeout(
      () =>
        settle(
          connected
            ? new FetchFailed('timeout', `no complete answer within ${policy.timeoutMs} ms`)
            : new FetchFailed('timeout', `no connection within ${policy.timeoutMs} ms`, { hostWide: true }),
        ),
      policy.timeoutMs,
    );
    request.on('error', (err) =>
      settle(err instanceof FetchFailed ? err : new FetchFailed('network', err.message, { cause: err, hostWide: !connected })),
    );
    request.on('response', (response) => {
      const refused = refusedResponse(response, policy.maxBytes);
      if (refused) return settle(refused);
      readBody(response, policy.maxBytes, settle, (chunks) => {
        try {
          const cacheControl = response.headers['cache-control'];
          settle({ body: parseJson(chunks), cacheControl, age: response.headers.age });
        } catch (err) {
          settle(err as FetchFailed);
        }
      });
    });
    request.end();
  });
}

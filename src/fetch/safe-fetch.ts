import { lookup } from 'node:dns/promises';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { FetchFailed } from './errors.js';
import { isSpecialUseAddress } from './special-use-addresses.js';

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

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address of a host name, as the connection would use them. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

export interface FetchPolicy {
  /** Fetch http:// URLs too (development and tests only). */
  readonly allowHttp: boolean;
  /** Connect to loopback, private and other special-use addresses (development and tests only). */
  readonly allowSpecialUseAddresses: boolean;
  /** Deadline of the whole exchange: DNS, connect, TLS, headers and body. */
  readonly timeoutMs: number;
  /** The most bytes of body read; a longer body is an error. */
  readonly maxBytes: number;
  /** PEM certificates trusted instead of Node's CA list (tests). NODE_EXTRA_CA_CERTS adds to the list instead. */
  readonly ca?: string | undefined;
  /** DNS resolution; tests inject their own. */
  readonly resolve?: Resolver | undefined;
}

export interface FetchedJson {
  readonly body: unknown;
  /** The response's Cache-Control and Age header fields, for the caller's cache (RFC 9111). */
  readonly cacheControl: string | undefined;
  readonly age: string | undefined;
}

const USER_AGENT = 'oauth2-token-service';
/** RFC 8259 §11 `application/json`, or a structured syntax suffix `application/<something>+json` (RFC 6839 §3.1). */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json$/;

function familyOf(requested: unknown): 4 | 6 | undefined {
  if (requested === 4 || requested === 'IPv4') return 4;
  if (requested === 6 || requested === 'IPv6') return 6;
  return undefined;
}

/** The addresses a connection may use, or the reason it may not connect at all. */
function usableAddresses(hostname: string, addresses: readonly ResolvedAddress[], policy: FetchPolicy, family: 4 | 6 | undefined) {
  const refused = policy.allowSpecialUseAddresses ? undefined : addresses.find((a) => isSpecialUseAddress(a.address));
  if (refused) {
    return new FetchFailed('special_use_address', `${hostname} resolves to ${refused.address}, a special-use address (RFC 6890)`);
  }
  const usable = addresses.filter((a) => family === undefined || a.family === family);
  return usable.length > 0 ? usable : new FetchFailed('unresolvable', `${hostname} has no usable address`);
}

/** The connection's DNS lookup: resolves, then refuses before any socket connects. */
function guardedLookup(policy: FetchPolicy): LookupFunction {
  const resolve = policy.resolve ?? systemResolver;
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const usable = usableAddresses(hostname, addresses, policy, familyOf(options.family));
        if (usable instanceof FetchFailed) return callback(usable, '', 4);
        const first = usable[0] as ResolvedAddress;
        return options.all
          ? callback(
              null,
              usable.map((a) => ({ ...a })),
            )
          : callback(null, first.address, first.family);
      },
      (err: unknown) => callback(new FetchFailed('unresolvable', `${hostname} could not be resolved`, { cause: err }), '', 4),
    );
  };
}

function targetOf(url: string, policy: FetchPolicy): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new FetchFailed('bad_url', 'not an absolute URL');
  }
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && policy.allowHttp)) {
    throw new FetchFailed('insecure_scheme', 'only https URLs are fetched');
  }
  if (target.username !== '' || target.password !== '') throw new FetchFailed('bad_url', 'a URL with user information is never fetched');
  // An IP literal never goes through the lookup: check it here.
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal) !== 0 && !policy.allowSpecialUseAddresses && isSpecialUseAddress(literal)) {
    throw new FetchFailed('special_use_address', `${literal} is a special-use address (RFC 6890)`);
  }
  return target;
}

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
    let settled = false;
    const settle = (outcome: FetchedJson | FetchFailed) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (outcome instanceof FetchFailed) {
        request.destroy();
        reject(outcome);
      } else resolve(outcome);
    };
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)({
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: target.port === '' ? undefined : Number(target.port),
      path: `${target.pathname}${target.search}`,
      method: 'GET',
      // No Cookie, no Authorization: nothing but what the request needs.
      headers: { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': USER_AGENT },
      // A fresh connection each time: no pooled socket to a host checked earlier.
      agent: false,
      lookup: guardedLookup(policy),
      ...(policy.ca === undefined ? {} : { ca: policy.ca }),
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
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        // CIMD §8.7: stop "after a maximum number of bytes and [treat] the response as an error".
        if (received > policy.maxBytes) settle(new FetchFailed('too_large', `the body is larger than ${policy.maxBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', (err) => settle(new FetchFailed('network', err.message, { cause: err })));
      response.on('close', () => {
        if (!response.complete) settle(new FetchFailed('network', 'the connection closed before the body was complete'));
      });
      response.on('end', () => {
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

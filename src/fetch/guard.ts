import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { FetchFailed } from './errors.js';
import { type ResolvedAddress, type Resolver, resolverFor } from './resolver.js';
import { isSpecialUseAddress } from './special-use-addresses.js';

export type { ResolvedAddress, Resolver } from './resolver.js';

/**
 * What every fetch of a URL someone else controls goes through: the URL's scheme and form,
 * and a DNS lookup inside the connection that refuses special-use addresses before any
 * socket connects (so the address checked is the address connected to).
 */

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
  /** DNS resolution; tests inject their own. Default: src/fetch/resolver.ts's choice. */
  readonly resolve?: Resolver | undefined;
}

export const USER_AGENT = 'oauth2-token-service';

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
export function guardedLookup(policy: FetchPolicy): LookupFunction {
  const resolve = resolverFor(policy);
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

export function targetOf(url: string, policy: FetchPolicy): URL {
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

/**
 * A request to `target` under `policy`: the connection's own DNS lookup checks every
 * address, a fresh connection (no pooled socket to a host checked earlier), the policy's
 * trust anchors. The caller sends it and bounds it in time.
 */
export function guardedRequest(target: URL, policy: FetchPolicy, method: string, headers: Record<string, string>): ClientRequest {
  return (target.protocol === 'https:' ? httpsRequest : httpRequest)({
    protocol: target.protocol,
    hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: target.port === '' ? undefined : Number(target.port),
    path: `${target.pathname}${target.search}`,
    method,
    headers,
    agent: false,
    lookup: guardedLookup(policy),
    ...(policy.ca === undefined ? {} : { ca: policy.ca }),
  });
}

/** Settles a request's promise once, clearing its deadline; a failure destroys the request. */
export function settleOnce<T>(
  resolve: (value: T) => void,
  reject: (err: FetchFailed) => void,
  request: () => ClientRequest,
  deadline: () => NodeJS.Timeout,
): (outcome: T | FetchFailed) => void {
  let settled = false;
  return (outcome) => {
    if (settled) return;
    settled = true;
    clearTimeout(deadline());
    if (outcome instanceof FetchFailed) {
      request().destroy();
      reject(outcome);
    } else resolve(outcome);
  };
}

/**
 * Reads a response body of at most `maxBytes` (more is an error, the rest is not read), then
 * hands over the chunks; a body cut short or a broken connection is an error.
 */
export function readBody(
  response: IncomingMessage,
  maxBytes: number,
  fail: (err: FetchFailed) => void,
  done: (chunks: readonly Buffer[]) => void,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    // CIMD §8.7: stop "after a maximum number of bytes and [treat] the response as an error".
    if (received > maxBytes) fail(new FetchFailed('too_large', `the body is larger than ${maxBytes} bytes`));
    else chunks.push(chunk);
  });
  response.on('error', (err) => fail(new FetchFailed('network', err.message, { cause: err })));
  response.on('close', () => {
    if (!response.complete) fail(new FetchFailed('network', 'the connection closed before the body was complete'));
  });
  response.on('end', () => done(chunks));
}

import { lookup, Resolver as DnsResolver } from 'node:dns/promises';

/**
 * How the fetcher turns a host name into addresses. Two ways, chosen by whom the name comes from:
 *
 * - `dnsResolver` asks the DNS servers of /etc/resolv.conf directly (c-ares, on the event loop),
 *   for the names of URLs a client names (`jwks_uri`, client metadata documents) and of every
 *   fetch that refuses special-use addresses. The system's resolver (`getaddrinfo`) would run on
 *   libuv's thread pool, which the server keeps small for the access tokens' signatures
 *   (src/config/signing.ts): a lookup waiting for an unanswering name server, which whoever
 *   registers a client can arrange, would hold every signature behind it for seconds.
 * - `systemResolver` is `getaddrinfo`, which also reads /etc/hosts and applies resolv.conf's
 *   `search` domains (a Kubernetes service's short name). It serves the fetches allowed to reach
 *   special-use addresses: an upstream provider or a workload issuer the operator set with
 *   `allow_private_addresses`, and development. Their names are the operator's.
 *
 * A name found only in /etc/hosts or through a `search` domain therefore resolves only where
 * private addresses are allowed; in a fetch that refuses them it would be refused anyway, as
 * such names point to private addresses.
 */

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address of a host name, as the connection would use them. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/**
 * RFC 6761 §6.3: "Name resolution APIs and libraries SHOULD recognize localhost names as special
 * and SHOULD always return the IP loopback address for address queries". Name servers are not
 * asked (they may not know them); the fetcher then refuses the loopback address by name.
 */
const LOOPBACK: readonly ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

function isLocalhost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

export interface DnsResolverOptions {
  /** The name servers asked instead of resolv.conf's (`127.0.0.1:5353`; tests). */
  readonly servers?: readonly string[];
  /** c-ares' wait for one answer, and its tries per name server; the fetch's own deadline bounds the whole. */
  readonly timeoutMs?: number;
  readonly tries?: number;
}

/**
 * A and AAAA records, IPv4 first (a server without IPv6 routes connects at once). A resolver
 * per lookup, so an edited resolv.conf is read, as getaddrinfo would.
 */
export function dnsResolver({ servers, timeoutMs = 2000, tries = 2 }: DnsResolverOptions = {}): Resolver {
  return async (hostname) => {
    if (isLocalhost(hostname)) return LOOPBACK;
    const resolver = new DnsResolver({ timeout: timeoutMs, tries });
    if (servers) resolver.setServers(servers);
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length > 0) return addresses;
    // Neither family has an address: the IPv4 query's reason (ENOTFOUND, ENODATA, ETIMEOUT).
    throw v4.status === 'rejected' ? v4.reason : new Error(`${hostname} has no address`);
  };
}

/** resolv.conf's name servers. */
export const publicDnsResolver = dnsResolver();

/** The resolver for a fetch: the operator's own, else by whether it may reach special-use addresses. */
export function resolverFor(policy: { readonly allowSpecialUseAddresses: boolean; readonly resolve?: Resolver | undefined }): Resolver {
  return policy.resolve ?? (policy.allowSpecialUseAddresses ? systemResolver : publicDnsResolver);
}

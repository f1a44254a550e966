import { isIP } from 'node:net';
import { z } from 'zod';
import { integer } from './fields.js';

/**
 * The variables that decide which address a client has (TRUST_PROXY) and what a
 * per-address limit counts it under (IPV6_LIMIT_PREFIX), parsed by src/config.ts with the
 * others (it stays the only reader of process.env).
 */

/**
 * Who may say where a request came from: nobody (false: the peer of the connection is the
 * client), the `hops` nearest proxies, or the proxies at these addresses and ranges. The
 * client is the right-most X-Forwarded-For entry no trusted proxy added (RFC 7239 §8.1).
 */
export type TrustProxy = false | number | readonly string[];

const MAX_PROXY_HOPS = 32;
const ACCEPTED_FORMS = `a number of proxy hops (1-${MAX_PROXY_HOPS}) or a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8,fd00::/8)`;

/** An IP address, or a range of at least one bit (/0 would be every address): 10.0.0.0/8, fd00::/8. */
function isProxyRange(entry: string): boolean {
  const [address = '', bits, ...extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) >= 1 && Number(bits) <= (family === 4 ? 32 : 128));
}

const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops >= 1 && hops <= MAX_PROXY_HOPS) return hops;
  } else {
    const ranges = value.split(',').map((entry) => entry.trim());
    if (ranges.every(isProxyRange)) return Object.freeze(ranges);
  }
  ctx.addIssue({
    code: 'custom',
    message:
      value === 'true'
        ? // Every hop trusted: the left-most entry, the one the client wrote, would be its address.
          `TRUST_PROXY=true would let a client choose its own address (X-Forwarded-For): set ${ACCEPTED_FORMS}`
        : `TRUST_PROXY must be ${ACCEPTED_FORMS}`,
  });
  return z.NEVER;
});

export const CLIENT_ADDRESS_FIELDS = {
  TRUST_PROXY: trustProxy.default(false),
  IPV6_LIMIT_PREFIX: integer('IPV6_LIMIT_PREFIX', 32, 128).default(64),
};

type ClientAddressVariables = z.output<z.ZodObject<typeof CLIENT_ADDRESS_FIELDS>>;

export interface ClientAddressConfig {
  /** TRUST_PROXY: which X-Forwarded-For entries are believed (Fastify's `trustProxy`). */
  readonly trustProxy: TrustProxy;
  /** IPV6_LIMIT_PREFIX: per-address limits count an IPv6 client by its network of this many bits. */
  readonly ipv6LimitPrefix: number;
}

export function clientAddressConfig(e: ClientAddressVariables): ClientAddressConfig {
  return { trustProxy: e.TRUST_PROXY, ipv6LimitPrefix: e.IPV6_LIMIT_PREFIX };
}

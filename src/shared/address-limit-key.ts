import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a per-address limit (sign-in failures, registrations) counts a client address
 * under. An IPv6 host is routinely given a whole /64 and may pick any address in it
 * (SLAAC, RFC 8981 temporary addresses), so IPv6 counts by its /`ipv6Prefix` network
 * (IPV6_LIMIT_PREFIX); IPv4 counts as is, and so does an IPv4-mapped IPv6 address
 * (::ffff:192.0.2.1, how a dual-stack socket reports an IPv4 peer), as the IPv4 address
 * it carries. Anything that is not an IP address is its own key.
 */
export function addressLimitKey(address: string, ipv6Prefix: number): string {
  if (isIPv4(address) || !isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6] as number, groups[7] as number];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  const network = groups.map((group, i) => group & groupMask(ipv6Prefix - 16 * i));
  return `${network.map((group) => group.toString(16)).join(':')}/${ipv6Prefix}`;
}

/** The mask of a 16-bit group of which the first `bits` (clamped to 0–16) belong to the network. */
function groupMask(bits: number): number {
  const kept = Math.min(16, Math.max(0, bits));
  return (0xffff << (16 - kept)) & 0xffff;
}

/** The eight 16-bit groups of an address node:net already accepted as IPv6. */
function ipv6Groups(address: string): number[] {
  let text = (address.split('%')[0] as string).toLowerCase();
  // An IPv4 tail (::ffff:192.0.2.1) is the last two groups.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = rest === undefined ? [] : parse(rest);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

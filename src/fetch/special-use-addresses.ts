import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Addresses a server must not be made to connect to on a client's behalf: the
 * special-use ranges of RFC 6890 (IANA's IPv4 and IPv6 Special-Purpose Address
 * Registries), plus multicast and the reserved 240/4. draft-ietf-oauth-client-id-
 * metadata-document §8.6: "Authorization servers MUST NOT fetch a Client ID Metadata
 * Document URL [...] that resolve[s] to special-use IP addresses as defined in [RFC6890]."
 */

const SPECIAL_USE_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, where cloud metadata services answer
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast address
];

/**
 * IPv6 is judged the other way round: only global unicast (2000::/3) may be reached,
 * minus its special-use blocks. Everything outside it is refused: loopback ::1,
 * unspecified ::, IPv4-mapped ::ffff:0:0/96 and IPv4-compatible ::/96 (which would reach
 * an IPv4 address), NAT64 64:ff9b::/96, unique local fc00::/7, link-local fe80::/10,
 * multicast ff00::/8.
 */
const GLOBAL_UNICAST_IPV6: ReadonlyArray<readonly [string, number]> = [['2000::', 3]];
const SPECIAL_USE_GLOBAL_IPV6: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID, AS112
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4, which embeds an IPv4 address
  ['3fff::', 20], // documentation (RFC 9637)
];

function blockList(ranges: ReadonlyArray<readonly [string, number]>, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

const specialIpv4 = blockList(SPECIAL_USE_IPV4, 'ipv4');
const globalIpv6 = blockList(GLOBAL_UNICAST_IPV6, 'ipv6');
const specialGlobalIpv6 = blockList(SPECIAL_USE_GLOBAL_IPV6, 'ipv6');

/** True for an IP address we must not connect to, and for anything that is not an IP address at all. */
export function isSpecialUseAddress(address: string): boolean {
  if (isIPv4(address)) return specialIpv4.check(address, 'ipv4');
  if (isIPv6(address)) return !globalIpv6.check(address, 'ipv6') || specialGlobalIpv6.check(address, 'ipv6');
  return true;
}

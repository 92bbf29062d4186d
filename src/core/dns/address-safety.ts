/**
 * Which IP addresses a probe may connect to. Anyone can publish an MX record pointing at
 * 127.0.0.1 or 10.0.0.5; connecting would turn the verifier into a port scanner of its own
 * network (SSRF). So loopback, private, shared, link-local, unspecified, multicast and
 * reserved ranges are refused unless the operator allows them (tests, PRESEND_ALLOW_PRIVATE_MX).
 */
import { BlockList, isIP } from 'node:net';

const refused = new BlockList();
// IPv4: RFC 1122 (0/8, 127/8), RFC 1918, RFC 6598 (100.64/10), RFC 3927 (169.254/16),
// RFC 5771 multicast (224/4), RFC 1112 reserved (240/4, incl. broadcast), RFC 6890 (192.0.0/24).
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(net, prefix, 'ipv4');
}
// IPv6: unspecified and loopback (RFC 4291), ULA fc00::/7 (RFC 4193), link-local fe80::/10,
// multicast ff00::/8, and the deprecated site-local fec0::/10.
refused.addAddress('::', 'ipv6');
refused.addAddress('::1', 'ipv6');
for (const [net, prefix] of [
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  refused.addSubnet(net, prefix, 'ipv6');
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 0) return true; // not an IP at all: never connect to it
  const { address: plain, family } = unmapped(address);
  return refused.check(plain, family);
}

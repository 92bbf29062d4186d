/**
 * Which IP addresses a probe may connect to. Anyone can publish an MX record pointing at
 * 127.0.0.1 or 10.0.0.5; connecting would turn the verifier into a port scanner of its own
 * network (SSRF). So loopback, private, shared, link-local, unspecified, multicast and
 * reserved ranges are refused unless the operator allows them (PRESEND_ALLOW_PRIVATE_MX:
 * `loopback` for the mail world on this machine, `true` for test networks).
 *
 * IPv6 transition forms carry an IPv4 address and reach it (RFC 6052 NAT64, RFC 3056 6to4,
 * IPv4-mapped): those are judged as the IPv4 address inside. Forms that have no business
 * hosting an MX are refused whole: IPv4-compatible `::a.b.c.d` (deprecated, RFC 4291
 * §2.5.5.1), local-use NAT64 64:ff9b:1::/48 (RFC 8215), and Teredo 2001::/32 (RFC 4380) —
 * its client address is obfuscated and it tunnels to whatever the relay reaches, so it is
 * refused wholesale rather than decoded.
 */
import { BlockList, isIP } from 'node:net';

/** PRESEND_ALLOW_PRIVATE_MX: false (refuse all), 'loopback' (127.0.0.0/8 and ::1 only), true (allow all). */
export type PrivateMxAllowance = boolean | 'loopback';

const refused = new BlockList();
// IPv4, IANA special-purpose registry (RFC 6890): RFC 1122 (0/8, 127/8), RFC 1918, RFC 6598
// (100.64/10), RFC 3927 (169.254/16), RFC 6890 (192.0.0/24), RFC 5737 documentation
// (192.0.2/24, 198.51.100/24, 203.0.113/24), RFC 7526 (192.88.99/24, deprecated 6to4 relays),
// RFC 2544 (198.18/15), RFC 5771 multicast (224/4), RFC 1112 reserved (240/4, incl. broadcast).
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(net, prefix, 'ipv4');
}
// IPv6: ::/96 (unspecified, loopback, IPv4-compatible), discard 100::/64 (RFC 6666), local-use
// NAT64 (RFC 8215), Teredo 2001::/32, benchmarking 2001:2::/48 (RFC 5180), ORCHID 2001:10::/28
// and ORCHIDv2 2001:20::/28 (RFC 7343), documentation 2001:db8::/32 (RFC 3849) and 3fff::/20
// (RFC 9637), ULA fc00::/7 (RFC 4193), link-local fe80::/10, site-local fec0::/10, multicast.
for (const [net, prefix] of [
  ['::', 96],
  ['100::', 64],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2001:2::', 48],
  ['2001:10::', 28],
  ['2001:20::', 28],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  refused.addSubnet(net, prefix, 'ipv6');
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The 16 bytes of an IPv6 address (with or without an embedded dotted quad); null if malformed. */
function ipv6Bytes(address: string): Uint8Array | null {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  let text = address;
  const tail: number[] = [];
  if (dotted?.[1]) {
    tail.push(...dotted[1].split('.').map(Number));
    text = address.slice(0, -dotted[1].length) + '0:0';
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const all = [...head, ...Array<string>(fill).fill('0'), ...rest];
  if (all.length !== 8) return null;
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

const ipv4Of = (bytes: Uint8Array, at: number): string => Array.from(bytes.subarray(at, at + 4)).join('.');

/**
 * The IPv4 address an IPv6 transition form reaches: IPv4-mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96 (RFC 6052 §2.1), 6to4 2002::/16 (RFC 3056 §2). Null for other addresses.
 */
export function embeddedIpv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const b = ipv6Bytes(address);
  if (!b) return null;
  const zero = (from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return ipv4Of(b, 12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return ipv4Of(b, 12);
  if (b[0] === 0x20 && b[1] === 0x02) return ipv4Of(b, 2);
  return null;
}

/** Never connect to this address unless the operator allowed private MX hosts. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  // Not an IP at all, or with a zone index (`fe80::1%eth0` is link-local by definition): refuse.
  if (family === 0 || address.includes('%')) return true;
  if (family === 4) return refused.check(address, 'ipv4');
  const inside = embeddedIpv4(address);
  if (inside !== null && refused.check(inside, 'ipv4')) return true;
  return refused.check(address, 'ipv6');
}

/** Loopback only: 127.0.0.0/8, ::1, and IPv4-mapped loopback. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return loopback.check(address, 'ipv4');
  if (family !== 6) return false;
  const b = ipv6Bytes(address);
  const mapped = b && b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff ? ipv4Of(b, 12) : null;
  return mapped !== null ? loopback.check(mapped, 'ipv4') : loopback.check(address, 'ipv6');
}

/** Whether a probe may connect to `address` under the operator's allowance. */
export function mayProbeAddress(address: string, allowance: PrivateMxAllowance): boolean {
  if (allowance === true) return isIP(address) !== 0;
  if (!isPrivateAddress(address)) return true;
  return allowance === 'loopback' && isLoopbackAddress(address);
}

/** PRESEND_ALLOW_PRIVATE_MX as given; null when the value is none of the accepted ones. */
export function parsePrivateMxAllowance(raw: string | undefined): PrivateMxAllowance | null {
  const value = raw?.trim().toLowerCase() ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(value)) return false;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  return value === 'loopback' ? 'loopback' : null;
}

/**
 * The DNS name under which an address is looked up in reverse: its IPv4 octets reversed
 * (RFC 1035 §3.5), or its IPv6 address as 32 reversed nibbles (RFC 3596 §2.5), under a zone —
 * `in-addr.arpa` / `ip6.arpa` for PTR records, a blocklist's own zone for a DNSBL query
 * (RFC 5782 §2.1, §2.4).
 */
import { isIPv6 } from 'node:net';

function ipv6Nibbles(ip: string): string[] {
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const missing = 8 - groups(head).length - groups(tail).length;
  const full = [...groups(head), ...Array<string>(Math.max(0, missing)).fill('0'), ...groups(tail)];
  return full.map((g) => g.padStart(4, '0').toLowerCase()).join('').split('');
}

/** `4.3.2.1.<zone>` for 1.2.3.4; the zone defaults to in-addr.arpa / ip6.arpa. */
export function reverseName(ip: string, zone?: string): string {
  if (isIPv6(ip)) return `${ipv6Nibbles(ip).reverse().join('.')}.${zone ?? 'ip6.arpa'}`;
  return `${ip.split('.').reverse().join('.')}.${zone ?? 'in-addr.arpa'}`;
}

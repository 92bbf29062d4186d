/**
 * Is the egress address on a DNS blocklist? A query of the reversed address under the list's
 * zone (RFC 5782 §2.1 for IPv4, §2.4 nibbles for IPv6): NXDOMAIN is "not listed", an A record
 * in 127.0.0.0/8 is a listing (its TXT record says why, §2.1).
 *
 * Not every answer is a listing. Blocklists refuse queries that come through large public
 * resolvers (8.8.8.8, 1.1.1.1, most cloud resolvers) and say so with answers of their own:
 * Spamhaus reserves 127.255.255.0/24 for such errors, "which should NOT be interpreted as any
 * sort of reputation" — .252 a typing error in the zone name, .254 a query via a public/open
 * resolver, .255 an excessive number of queries (Spamhaus, "DNSBL return codes: technical
 * update", https://www.spamhaus.org/news/article/788/, and its DNSBL usage FAQ). URIBL and
 * SURBL answer 127.0.0.1 when they refuse a resolver (RFC 5782 §5 keeps 127.0.0.1 out of every
 * list's data). An address outside 127.0.0.0/8 is no DNSBL answer at all: a resolver that
 * rewrites NXDOMAIN to an address of its own (ISP "search assist").
 */
import type { DiagnosticDnsClient } from '../../core/dns/resolver.js';
import { reverseName } from '../../core/dns/reverse-name.js';

export type BlocklistAnswer =
  | { kind: 'not_listed' }
  | { kind: 'listed'; codes: string[]; reason: string | null }
  | { kind: 'refused'; code: string; meaning: string }
  | { kind: 'not_a_blocklist_answer'; codes: string[] }
  | { kind: 'lookup_failed'; detail: string };

const REFUSAL_CODES: Record<string, string> = {
  '127.255.255.252': 'the blocklist says its zone name was mistyped (Spamhaus 127.255.255.252)',
  '127.255.255.254': 'the blocklist refuses queries that come through a public or open resolver (Spamhaus 127.255.255.254)',
  '127.255.255.255': 'the blocklist refuses this resolver for an excessive number of queries (Spamhaus 127.255.255.255)',
  '127.0.0.1': 'the blocklist refuses this resolver (127.0.0.1, as URIBL and SURBL answer refused queries)',
};

/** Reads the A records a blocklist answered (pure: the table above). */
export function readBlocklistCodes(codes: readonly string[]): Exclude<BlocklistAnswer, { kind: 'lookup_failed' | 'not_listed' }> {
  for (const code of codes) {
    const refusal = REFUSAL_CODES[code];
    if (refusal !== undefined) return { kind: 'refused', code, meaning: refusal };
    if (code.startsWith('127.255.255.')) return { kind: 'refused', code, meaning: `the blocklist answered an error code (${code}; Spamhaus reserves 127.255.255.0/24 for errors)` };
  }
  if (codes.some((code) => !code.startsWith('127.'))) return { kind: 'not_a_blocklist_answer', codes: [...codes] };
  return { kind: 'listed', codes: [...codes], reason: null };
}

export async function lookupBlocklist(dns: DiagnosticDnsClient, zone: string, ip: string): Promise<BlocklistAnswer> {
  const name = reverseName(ip, zone);
  const answer = await dns.a(name);
  if (!answer.ok) {
    if (answer.failure === 'nxdomain' || answer.failure === 'nodata') return { kind: 'not_listed' };
    return { kind: 'lookup_failed', detail: `${answer.failure}: ${answer.detail}` };
  }
  const read = readBlocklistCodes(answer.records);
  if (read.kind !== 'listed') return read;
  const txt = await dns.txt(name);
  return { ...read, reason: txt.ok && txt.records.length > 0 ? txt.records.join(' ') : null };
}

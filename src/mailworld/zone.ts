/**
 * The world's DNS data: every name of the spec with its records and its failure mode, and
 * the answer to one question, as a recursive resolver would give it (CNAMEs followed).
 */
import { isIPv6 } from 'node:net';
import { RCODE, RTYPE, type ResourceRecord } from './dns-wire.js';
import type { DomainSpec, WorldSpec } from './spec.js';

export type DnsMode = NonNullable<DomainSpec['dns']>;

export interface ZoneNode {
  a: string[];
  aaaa: string[];
  mx: Array<{ host: string; preference: number }>;
  nullMx: boolean;
  /** PTR targets (reverse names, in-addr.arpa). */
  ptr: string[];
  /** TXT records, one string each (SPF, blocklist reasons). */
  txt: string[];
  cname?: string;
  mode: DnsMode;
}

export type ZoneAnswer = { kind: 'answer'; rcode: number; answers: ResourceRecord[] } | { kind: 'silence' };

/** Longest CNAME chain followed before answering SERVFAIL, as resolvers bound it. */
const MAX_CNAME_CHAIN = 8;

export function normaliseName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function emptyNode(): ZoneNode {
  return { a: [], aaaa: [], mx: [], nullMx: false, ptr: [], txt: [], mode: 'normal' };
}

/**
 * Builds the zone. `hostIps` gives the address the world assigned to each MX host, so MX
 * targets get A (or AAAA for `::1`) records without the spec repeating them.
 */
export function buildZone(spec: WorldSpec, hostIps: ReadonlyMap<string, string>): Map<string, ZoneNode> {
  const zone = new Map<string, ZoneNode>();
  const node = (name: string): ZoneNode => {
    const key = normaliseName(name);
    let found = zone.get(key);
    if (!found) {
      found = emptyNode();
      zone.set(key, found);
    }
    return found;
  };
  for (const [host, ip] of hostIps) {
    const n = node(host);
    if (isIPv6(ip)) n.aaaa.push(ip);
    else n.a.push(ip);
  }
  for (const domain of spec.domains) {
    const n = node(domain.name);
    n.a.push(...(domain.a ?? []));
    n.aaaa.push(...(domain.aaaa ?? []));
    n.mx.push(...(domain.mx ?? []));
    n.txt.push(...(domain.txt ?? []));
    n.nullMx = domain.nullMx ?? false;
    if (domain.cname) n.cname = domain.cname;
    n.mode = domain.dns ?? 'normal';
  }
  for (const extra of spec.names ?? []) {
    const n = node(extra.name);
    n.a.push(...(extra.a ?? []));
    n.aaaa.push(...(extra.aaaa ?? []));
    n.ptr.push(...(extra.ptr ?? []));
    n.txt.push(...(extra.txt ?? []));
    if (extra.cname) n.cname = extra.cname;
    n.mode = extra.dns ?? n.mode;
  }
  return zone;
}

function recordsOf(name: string, node: ZoneNode, type: number): ResourceRecord[] {
  switch (type) {
    case RTYPE.A:
      return node.a.map((address) => ({ name, type: RTYPE.A, address }));
    case RTYPE.AAAA:
      return node.aaaa.map((address) => ({ name, type: RTYPE.AAAA, address }));
    case RTYPE.MX:
      // RFC 7505: a null MX is the only MX record of its domain.
      if (node.nullMx) return [{ name, type: RTYPE.MX, preference: 0, exchange: '.' }];
      return node.mx.map((mx) => ({ name, type: RTYPE.MX, preference: mx.preference, exchange: mx.host }));
    case RTYPE.PTR:
      return node.ptr.map((target) => ({ name, type: RTYPE.PTR, target }));
    case RTYPE.TXT:
      return node.txt.map((text) => ({ name, type: RTYPE.TXT, text }));
    default:
      return [];
  }
}

/** Answers one question. Unknown names are NXDOMAIN; a CNAME loop is SERVFAIL, as resolvers report it. */
export function answer(zone: ReadonlyMap<string, ZoneNode>, qname: string, qtype: number): ZoneAnswer {
  const answers: ResourceRecord[] = [];
  const seen = new Set<string>();
  let name = qname.replace(/\.$/, '');
  for (;;) {
    const key = normaliseName(name);
    const node = zone.get(key);
    if (!node || node.mode === 'nxdomain') return { kind: 'answer', rcode: RCODE.NXDOMAIN, answers };
    if (node.mode === 'servfail') return { kind: 'answer', rcode: RCODE.SERVFAIL, answers: [] };
    if (node.mode === 'timeout') return { kind: 'silence' };
    if (node.cname === undefined || qtype === RTYPE.CNAME) {
      if (qtype === RTYPE.CNAME && node.cname !== undefined) {
        answers.push({ name, type: RTYPE.CNAME, target: node.cname });
        return { kind: 'answer', rcode: RCODE.NOERROR, answers };
      }
      answers.push(...recordsOf(name, node, qtype));
      return { kind: 'answer', rcode: RCODE.NOERROR, answers };
    }
    if (seen.has(key) || seen.size >= MAX_CNAME_CHAIN) return { kind: 'answer', rcode: RCODE.SERVFAIL, answers: [] };
    seen.add(key);
    answers.push({ name, type: RTYPE.CNAME, target: node.cname });
    name = node.cname.replace(/\.$/, '');
  }
}

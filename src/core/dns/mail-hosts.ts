/**
 * Where mail for a domain goes (RFC 5321 §5.1): MX records in preference order; a null MX
 * (RFC 7505: a single `0 .`) means the domain accepts no mail; with no MX at all the domain's
 * own A/AAAA records act as an implicit MX. CNAMEs are followed with loop detection.
 */
import type { DnsAnswer, DnsClient } from './resolver.js';

export interface MxHost {
  name: string;
  preference: number;
}

export type MailHosts =
  | { kind: 'hosts'; hosts: MxHost[]; implicit: boolean }
  | { kind: 'null_mx' }
  | { kind: 'nxdomain' }
  | { kind: 'no_mx_no_a' }
  | { kind: 'cname_loop' }
  | { kind: 'dns_failure'; failure: 'servfail' | 'timeout' | 'error'; detail: string };

export interface MailHostsOptions {
  /** Hosts kept after sorting; a domain publishing thousands of MX records costs no more. */
  maxHosts: number;
  maxCnameDepth: number;
}

const stripDot = (name: string): string => name.toLowerCase().replace(/\.$/, '');

function failureOf(answer: DnsAnswer<unknown>): MailHosts | null {
  if (answer.ok) return null;
  if (answer.failure === 'nxdomain') return { kind: 'nxdomain' };
  if (answer.failure === 'nodata') return null;
  return { kind: 'dns_failure', failure: answer.failure, detail: answer.detail };
}

function fromMxRecords(records: ReadonlyArray<{ exchange: string; priority: number }>, maxHosts: number): MailHosts {
  const real = records.filter((r) => stripDot(r.exchange) !== '');
  // RFC 7505 §3: a null MX is the only record; mixed with others it is ignored.
  if (real.length === 0) return { kind: 'null_mx' };
  // Equal preferences are kept in name order rather than shuffled (RFC 5321 §5.1 SHOULD):
  // a prober gains nothing from spreading, and a stable order lets sessions be reused.
  const sorted = real
    .map((r) => ({ name: stripDot(r.exchange), preference: r.priority }))
    .sort((x, y) => x.preference - y.preference || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  const seen = new Set<string>();
  const hosts: MxHost[] = [];
  for (const host of sorted) {
    if (seen.has(host.name)) continue;
    seen.add(host.name);
    hosts.push(host);
    if (hosts.length >= maxHosts) break;
  }
  return { kind: 'hosts', hosts, implicit: false };
}

async function implicitMx(dns: DnsClient, name: string): Promise<MailHosts> {
  const [a, aaaa] = await Promise.all([dns.a(name), dns.aaaa(name)]);
  if ((a.ok && a.records.length > 0) || (aaaa.ok && aaaa.records.length > 0)) {
    return { kind: 'hosts', hosts: [{ name, preference: 0 }], implicit: true };
  }
  for (const answer of [a, aaaa]) {
    const failure = failureOf(answer);
    if (failure && failure.kind === 'dns_failure') return failure;
  }
  if (!a.ok && a.failure === 'nxdomain' && !aaaa.ok && aaaa.failure === 'nxdomain') return { kind: 'nxdomain' };
  return { kind: 'no_mx_no_a' };
}

export async function lookupMailHosts(dns: DnsClient, domain: string, options: MailHostsOptions): Promise<MailHosts> {
  let name = stripDot(domain);
  const visited = new Set<string>();
  for (let depth = 0; depth <= options.maxCnameDepth; depth++) {
    visited.add(name);
    const mx = await dns.mx(name);
    if (mx.ok && mx.records.length > 0) return fromMxRecords(mx.records, options.maxHosts);
    const mxFailure = failureOf(mx);
    if (mxFailure) return mxFailure;
    // NODATA for MX: the name may be an alias whose target the server did not chase.
    const cname = await dns.cname(name);
    const target = cname.ok ? cname.records[0] : undefined;
    if (target !== undefined) {
      const next = stripDot(target);
      if (visited.has(next)) return { kind: 'cname_loop' };
      name = next;
      continue;
    }
    const cnameFailure = failureOf(cname);
    if (cnameFailure?.kind === 'dns_failure') return cnameFailure;
    return implicitMx(dns, name);
  }
  return { kind: 'cname_loop' };
}

export type HostAddresses =
  | { ok: true; addresses: string[] }
  | { ok: false; failure: 'unresolvable' | 'servfail' | 'timeout' | 'error'; detail: string };

/** A and AAAA of one MX host; IPv4 first (most MX hosts are reached over IPv4). */
export async function lookupHostAddresses(dns: DnsClient, host: string): Promise<HostAddresses> {
  const [a, aaaa] = await Promise.all([dns.a(host), dns.aaaa(host)]);
  const addresses = [...(a.ok ? a.records : []), ...(aaaa.ok ? aaaa.records : [])];
  if (addresses.length > 0) return { ok: true, addresses };
  for (const answer of [a, aaaa]) {
    if (!answer.ok && answer.failure !== 'nxdomain' && answer.failure !== 'nodata') {
      return { ok: false, failure: answer.failure, detail: answer.detail };
    }
  }
  return { ok: false, failure: 'unresolvable', detail: `${host} has no A or AAAA records` };
}

/**
 * Does the probe sender's domain let the egress address send? An SPF evaluation (RFC 7208
 * §4) of `check_host(egress, domain)`, enough to tell an operator whether a receiver that
 * checks SPF on the probe's MAIL FROM would see `pass`.
 *
 * Why not a library: the maintained one (mailauth) needs Node 22.19 since its 5.x line, and the
 * small ones on npm are unmaintained or only parse. This covers every mechanism but `ptr`
 * (RFC 7208 §5.5: "SHOULD NOT be published"; it never matches here) and does not expand
 * macros (§7): a record that uses them is reported as `unsupported`, never guessed at.
 * The lookup bounds are the RFC's: 10 terms that query DNS (§4.6.4), 10 names per `mx`, and
 * 2 void lookups.
 */
import { BlockList, isIPv6 } from 'node:net';
import type { DiagnosticDnsClient, DnsAnswer } from '../../core/dns/resolver.js';

export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror' | 'unsupported';

export interface SpfOutcome {
  result: SpfResult;
  /** The record of the domain asked about (null when there is none). */
  record: string | null;
  /** Why: the mechanism that matched, or what went wrong. */
  explanation: string;
  /** DNS-querying terms used, out of the 10 allowed. */
  lookups: number;
}

const QUALIFIER_RESULT: Record<string, SpfResult> = { '+': 'pass', '-': 'fail', '~': 'softfail', '?': 'neutral' };
const MAX_LOOKUPS = 10;
const MAX_VOID_LOOKUPS = 2;
const MAX_MX_NAMES = 10;

class SpfStop extends Error {
  constructor(
    readonly result: 'permerror' | 'temperror' | 'unsupported',
    message: string,
  ) {
    super(message);
  }
}

interface Budget {
  lookups: number;
  voids: number;
}

/** Selects the SPF record among a name's TXT records (RFC 7208 §4.5). */
function selectRecord(answer: DnsAnswer<string>, domain: string): string | null {
  if (!answer.ok) {
    if (answer.failure === 'nxdomain' || answer.failure === 'nodata') return null;
    throw new SpfStop('temperror', `TXT lookup of ${domain} failed (${answer.failure})`);
  }
  const records = answer.records.filter((txt) => /^v=spf1(?:\s|$)/i.test(txt));
  if (records.length > 1) throw new SpfStop('permerror', `${domain} publishes ${records.length} SPF records (RFC 7208 §4.5 allows one)`);
  return records[0] ?? null;
}

function inNetwork(ip: string, network: string, prefix: number): boolean {
  const family = isIPv6(network) ? 'ipv6' : 'ipv4';
  if ((family === 'ipv6') !== isIPv6(ip)) return false;
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return list.check(ip, family);
}

/** `domain/24//64` → the domain (or the current one) and the prefix lengths (RFC 7208 §5.6). */
function splitTarget(arg: string | undefined, current: string): { domain: string; v4: number; v6: number } {
  const match = /^([^/]*)(?:\/(\d+))?(?:\/\/(\d+))?$/.exec(arg ?? '');
  if (!match) throw new SpfStop('permerror', `bad domain-spec "${arg ?? ''}"`);
  const domain = match[1] || current;
  if (domain.includes('%')) throw new SpfStop('unsupported', `"${domain}" uses SPF macros (RFC 7208 §7), which this check does not expand`);
  const v4 = match[2] !== undefined ? Number(match[2]) : 32;
  const v6 = match[3] !== undefined ? Number(match[3]) : 128;
  if (v4 > 32 || v6 > 128) throw new SpfStop('permerror', `bad prefix length in "${arg ?? ''}"`);
  return { domain, v4, v6 };
}

export class SpfEvaluator {
  constructor(private readonly dns: DiagnosticDnsClient) {}

  async check(ip: string, domain: string): Promise<SpfOutcome> {
    const budget: Budget = { lookups: 0, voids: 0 };
    let record: string | null = null;
    try {
      record = selectRecord(await this.dns.txt(domain), domain);
      if (record === null) return { result: 'none', record: null, explanation: `${domain} publishes no SPF record`, lookups: 0 };
      const { result, explanation } = await this.evaluate(record, ip, domain, budget);
      return { result, record, explanation, lookups: budget.lookups };
    } catch (error) {
      if (!(error instanceof SpfStop)) throw error;
      return { result: error.result, record, explanation: error.message, lookups: budget.lookups };
    }
  }

  private count(budget: Budget): void {
    budget.lookups += 1;
    if (budget.lookups > MAX_LOOKUPS) throw new SpfStop('permerror', `more than ${MAX_LOOKUPS} DNS-querying terms (RFC 7208 §4.6.4)`);
  }

  private async addresses(name: string, ip: string, budget: Budget): Promise<string[]> {
    const answer = isIPv6(ip) ? await this.dns.aaaa(name) : await this.dns.a(name);
    if (answer.ok && answer.records.length > 0) return answer.records;
    if (!answer.ok && answer.failure !== 'nxdomain' && answer.failure !== 'nodata') throw new SpfStop('temperror', `address lookup of ${name} failed (${answer.failure})`);
    budget.voids += 1;
    if (budget.voids > MAX_VOID_LOOKUPS) throw new SpfStop('permerror', `more than ${MAX_VOID_LOOKUPS} lookups found nothing (RFC 7208 §4.6.4)`);
    return [];
  }

  private async evaluate(record: string, ip: string, domain: string, budget: Budget): Promise<{ result: SpfResult; explanation: string }> {
    const terms = record.trim().split(/\s+/).slice(1);
    let redirect: string | null = null;
    for (const term of terms) {
      const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
      if (modifier) {
        if (modifier[1]?.toLowerCase() === 'redirect') redirect = modifier[2] ?? '';
        continue; // exp= and unknown modifiers change no result (RFC 7208 §6)
      }
      // `a/24` and `mx//64` carry prefix lengths without a colon: read them as `a:/24`.
      const parsed = /^([+\-~?]?)([a-z0-9]+)(?::(.*))?$/i.exec(term.replace(/^([+\-~?]?[a-z0-9]+)\//i, '$1:/'));
      if (!parsed) throw new SpfStop('permerror', `unknown term "${term}"`);
      const qualifier = parsed[1] || '+';
      const name = (parsed[2] ?? '').toLowerCase();
      const arg = parsed[3];
      if (await this.matches(name, arg, ip, domain, budget)) {
        return { result: QUALIFIER_RESULT[qualifier] ?? 'pass', explanation: `${domain}: "${term}" matches ${ip}` };
      }
    }
    if (redirect !== null) {
      this.count(budget);
      const target = splitTarget(redirect, domain).domain;
      const next = selectRecord(await this.dns.txt(target), target);
      if (next === null) throw new SpfStop('permerror', `redirect=${target} has no SPF record`);
      return this.evaluate(next, ip, target, budget);
    }
    return { result: 'neutral', explanation: `${domain}: no term matches ${ip}` };
  }

  private async matches(name: string, arg: string | undefined, ip: string, domain: string, budget: Budget): Promise<boolean> {
    switch (name) {
      case 'all':
        return true;
      case 'ip4':
      case 'ip6': {
        const [network = '', prefix] = (arg ?? '').split('/');
        const family = name === 'ip6' ? 6 : 4;
        const bits = prefix !== undefined ? Number(prefix) : family === 6 ? 128 : 32;
        if (network === '' || (family === 6) !== isIPv6(network)) throw new SpfStop('permerror', `bad ${name} network "${arg ?? ''}"`);
        return inNetwork(ip, network, bits);
      }
      case 'a': {
        this.count(budget);
        const target = splitTarget(arg, domain);
        const found = await this.addresses(target.domain, ip, budget);
        return found.some((address) => inNetwork(ip, address, isIPv6(ip) ? target.v6 : target.v4));
      }
      case 'mx': {
        this.count(budget);
        const target = splitTarget(arg, domain);
        const mx = await this.dns.mx(target.domain);
        if (!mx.ok && mx.failure !== 'nxdomain' && mx.failure !== 'nodata') throw new SpfStop('temperror', `MX lookup of ${target.domain} failed (${mx.failure})`);
        const hosts = mx.ok ? mx.records.map((r) => r.exchange) : [];
        if (hosts.length > MAX_MX_NAMES) throw new SpfStop('permerror', `${target.domain} has more than ${MAX_MX_NAMES} MX names (RFC 7208 §4.6.4)`);
        for (const host of hosts) {
          const found = await this.addresses(host, ip, budget);
          if (found.some((address) => inNetwork(ip, address, isIPv6(ip) ? target.v6 : target.v4))) return true;
        }
        return false;
      }
      case 'include': {
        this.count(budget);
        const target = splitTarget(arg, domain).domain;
        const included = selectRecord(await this.dns.txt(target), target);
        if (included === null) throw new SpfStop('permerror', `include:${target} has no SPF record`);
        const { result } = await this.evaluate(included, ip, target, budget);
        return result === 'pass'; // RFC 7208 §5.2: only a pass of the included record matches
      }
      case 'exists': {
        this.count(budget);
        const target = splitTarget(arg, domain).domain;
        const answer = await this.dns.a(target);
        return answer.ok && answer.records.length > 0;
      }
      case 'ptr':
        this.count(budget);
        return false;
      default:
        throw new SpfStop('permerror', `unknown mechanism "${name}"`);
    }
  }
}

/**
 * The checks of one egress route: does port 25 get out (directly or through its proxy), which
 * address do receivers see, does that address have a PTR record that confirms and matches the
 * HELO name, and is it on a blocklist. Each turns what was found into a HealthCheck.
 */
import { isIPv6 } from 'node:net';
import type { DiagnosticDnsClient } from '../../core/dns/resolver.js';
import type { EgressRoute } from '../../core/egress/egress-routes.js';
import { isPrivateAddress } from '../../core/dns/address-safety.js';
import type { CanarySession, CanaryTarget } from './canary.js';
import { lookupBlocklist } from './dnsbl.js';
import { failed, passed, warned, type HealthCheck } from './health-check.js';

export type { EgressRoute };

/** The proxy's URL without its password, for output. */
export function shownProxy(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

const SOCKS5_REPLIES: Record<number, string> = {
  1: 'general SOCKS server failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

const PROXY_WITH_PORT_25 =
  'Use a SOCKS5 proxy that allows outbound port 25 (most proxy services block it: ask for one that allows SMTP, or run your own on a server whose provider opens port 25) and set PRESEND_SMTP_PROXY to it.';

function noConnection(route: EgressRoute, target: CanaryTarget, session: Extract<CanarySession, { kind: 'no_connection' }>, timeoutMs: number): HealthCheck {
  const where = `${target.host} (${target.ip}:${target.port})`;
  const base = { id: 'port25', impact: 'broken' as const, detail: { canary: target, failure: session.failure, error: session.detail, proxyReply: session.proxyReply } };
  if (session.proxyReply !== null) {
    const code = `0x${session.proxyReply.toString(16).padStart(2, '0')}`;
    const said = SOCKS5_REPLIES[session.proxyReply] ?? 'unknown reply';
    const refusesPort25 = session.proxyReply === 2 || session.proxyReply === 5;
    return failed(route.name, {
      ...base,
      summary: `the SOCKS5 proxy refused to connect to ${where}: reply ${code} "${said}" (RFC 1928 §6)`,
      meaning: refusesPort25
        ? session.proxyReply === 2
          ? 'The proxy does not allow connections to port 25: every probe through it fails before it starts.'
          : 'The proxy says the connection was refused: it blocks port 25, or the canary refused it (then try another PRESEND_CANARY_MX).'
        : 'The proxy could not open the connection: no probe through it can start.',
      action: refusesPort25 ? PROXY_WITH_PORT_25 : 'Check the proxy (its logs, its network) or use another one.',
    });
  }
  if (route.proxy !== null) {
    return failed(route.name, {
      ...base,
      summary: `no session through the proxy ${shownProxy(route.proxy)}: ${session.detail}`,
      meaning: 'The proxy cannot be used (not reachable, wrong credentials, or it stopped answering): every probe through it fails.',
      action: 'Check PRESEND_SMTP_PROXY: address, port, user name and password; that the proxy runs; that this host may reach it.',
    });
  }
  if (session.failure === 'timeout') {
    return failed(route.name, {
      ...base,
      summary: `no TCP connection to ${where} within ${timeoutMs} ms`,
      meaning: 'Outbound port 25 is most likely blocked: most clouds and VPS providers block it by default (AWS, Google Cloud, Azure, …). Every probe would end TRANSIENT or UNKNOWN.',
      action: `Ask your provider to open outbound port 25 (some never do), or probe through a proxy that allows it. ${PROXY_WITH_PORT_25}`,
    });
  }
  return failed(route.name, {
    ...base,
    summary: `the connection to ${where} failed: ${session.detail}`,
    meaning: 'Outbound port 25 is blocked by a firewall that rejects it, or the canary is down.',
    action: 'Check the host firewall and the provider\'s rules for outbound port 25; or point PRESEND_CANARY_MX at a mail server you know is up.',
  });
}

export function port25Check(route: EgressRoute, target: CanaryTarget, session: CanarySession, timeoutMs: number): HealthCheck {
  const via = route.proxy ? ` through ${shownProxy(route.proxy)}` : '';
  switch (session.kind) {
    case 'no_connection':
      return noConnection(route, target, session, timeoutMs);
    case 'no_banner':
      return failed(route.name, {
        id: 'port25',
        impact: 'broken',
        summary: `connected to ${target.host}${via}, but no greeting came (${session.detail})`,
        meaning: 'Something between the prober and the Internet accepts port 25 connections and says nothing (a firewall that intercepts SMTP, a tarpit): probes time out.',
        action: 'Check for SMTP interception on the network or the proxy; try another canary with PRESEND_CANARY_MX.',
        detail: { canary: target },
      });
    case 'refused_at_banner':
      return failed(route.name, {
        id: 'port25',
        impact: 'degraded',
        summary: `${target.host} refused the session${via} at its greeting: ${session.banner.code} ${session.banner.text}`,
        meaning: 'Port 25 gets out, but this mail server turns the prober away before any command: a block of the egress address is likely (the text often names the blocklist).',
        action: 'Read the reply text; see the blocklist checks below; get the address delisted or probe from another one.',
        detail: { canary: target, banner: session.banner.lines },
      });
    case 'greeted':
      return passed(route.name, {
        id: 'port25',
        impact: 'broken',
        summary: `port 25 reaches ${target.host} (${target.ip})${via}: ${session.banner.code} ${session.banner.text}`,
        meaning: 'Probes can get out and reach mail servers.',
        detail: { canary: target, banner: session.banner.lines, ehlo: session.ehlo?.lines ?? null },
      });
  }
}

export type EgressSource = 'setting' | 'ehlo_reply' | 'local_socket';

export interface LearnedEgress {
  check: HealthCheck;
  /** The address the other checks look at; null when none could be learned. */
  ip: string | null;
  source: EgressSource | null;
}

/** Which address receivers see: the configured one (PRESEND_EGRESS_IP, a route's public source), else the one the canary named, else the socket's own (direct routes only). */
export function learnEgress(route: EgressRoute, configured: string | null, session: CanarySession): LearnedEgress {
  const named = session.kind === 'greeted' ? session.namedAddress : null;
  const local = session.kind === 'greeted' && route.proxy === null ? session.localAddress : null;
  const id = 'egress_address';
  if (configured !== null) {
    const seen = named ?? local;
    const check =
      seen !== null && seen !== configured
        ? warned(route.name, {
            id,
            impact: 'degraded',
            summary: `the settings say the egress is ${configured}, but the canary saw ${seen}`,
            meaning: 'The checks below look at the configured address; if receivers see the other one, its PTR, SPF and blocklist status are what count.',
            action: 'Set PRESEND_EGRESS_IP (or the route\'s source) to the address probes leave from, or remove it to use the one the canary sees.',
            detail: { ip: configured, source: 'setting', seen },
          })
        : passed(route.name, { id, impact: 'degraded', summary: `egress address ${configured} (as configured: PRESEND_EGRESS_IP or the route's source)`, meaning: 'The address receivers see, as configured.', detail: { ip: configured, source: 'setting' } });
    return { check, ip: configured, source: 'setting' };
  }
  if (named !== null) {
    return {
      check: passed(route.name, { id, impact: 'degraded', summary: `egress address ${named} (as the canary's EHLO reply named it)`, meaning: 'The address receivers see.', detail: { ip: named, source: 'ehlo_reply' } }),
      ip: named,
      source: 'ehlo_reply',
    };
  }
  if (local !== null) {
    const hidden = isPrivateAddress(local);
    return {
      check: hidden
        ? warned(route.name, {
            id,
            impact: 'degraded',
            summary: `egress address unknown: this host's own address ${local} is private, and a NAT hides the public one`,
            meaning: 'The PTR, SPF and blocklist checks look at the private address, which receivers never see.',
            action: 'Set PRESEND_EGRESS_IP to the public address probes leave from (ask your provider, or see what a mail server logs).',
            detail: { ip: local, source: 'local_socket' },
          })
        : passed(route.name, { id, impact: 'degraded', summary: `egress address ${local} (the connection's own address)`, meaning: 'The address receivers see, unless a NAT rewrites it.', detail: { ip: local, source: 'local_socket' } }),
      ip: local,
      source: 'local_socket',
    };
  }
  return {
    check: warned(route.name, {
      id,
      impact: 'degraded',
      summary: 'egress address unknown (no session with the canary, and its reply named no address)',
      meaning: 'The PTR, SPF and blocklist checks of this route are skipped.',
      action: 'Set PRESEND_EGRESS_IP to the public address probes leave from.',
    }),
    ip: null,
    source: null,
  };
}

async function forwardConfirms(dns: DiagnosticDnsClient, name: string, ip: string): Promise<boolean> {
  const answer = isIPv6(ip) ? await dns.aaaa(name) : await dns.a(name);
  return answer.ok && answer.records.includes(ip);
}

/** The egress address's PTR exists and forward-confirms (FCrDNS), and is the HELO name. */
export async function ptrChecks(route: EgressRoute, ip: string, dns: DiagnosticDnsClient): Promise<HealthCheck[]> {
  const checks: HealthCheck[] = [];
  const ptr = await dns.ptr(ip);
  const names = ptr.ok ? ptr.records.map((n) => n.toLowerCase().replace(/\.$/, '')) : [];
  const confirmed: string[] = [];
  for (const name of names) if (await forwardConfirms(dns, name, ip)) confirmed.push(name);
  const helo = route.heloName.toLowerCase();
  if (!ptr.ok && ptr.failure !== 'nxdomain' && ptr.failure !== 'nodata') {
    checks.push(warned(route.name, { id: 'ptr', impact: 'degraded', summary: `the PTR lookup of ${ip} failed (${ptr.failure})`, meaning: 'Whether the address has a reverse name is unknown.', action: 'Check the DNS resolver (see the resolver check) and run the doctor again.' }));
  } else if (names.length === 0) {
    checks.push(
      failed(route.name, {
        id: 'ptr',
        impact: 'degraded',
        summary: `${ip} has no PTR record`,
        meaning: 'Many receivers (Gmail, Microsoft, most Postfix setups with reject_unknown_client_hostname) refuse or distrust a client without reverse DNS: probes end UNKNOWN.',
        action: `Ask whoever owns the address (your cloud or ISP; on most clouds a setting of the address) to set its PTR to ${route.heloName}, and give that name an A/AAAA record pointing back to ${ip}.`,
      }),
    );
  } else if (confirmed.length === 0) {
    checks.push(
      failed(route.name, {
        id: 'ptr',
        impact: 'degraded',
        summary: `the PTR of ${ip} (${names.join(', ')}) does not resolve back to it: no forward-confirmed reverse DNS`,
        meaning: 'Receivers that check FCrDNS treat the reverse name as absent (Postfix reject_unknown_client_hostname, many spam filters).',
        action: `Give ${names[0] ?? route.heloName} an A/AAAA record with ${ip}, or change the PTR to a name that has one.`,
        detail: { ptr: names },
      }),
    );
  } else {
    checks.push(passed(route.name, { id: 'ptr', impact: 'degraded', summary: `${ip} has PTR ${confirmed.join(', ')}, which resolves back to it (FCrDNS)`, meaning: 'Receivers see a named, forward-confirmed client.', detail: { ptr: names } }));
  }
  if (names.length > 0) {
    checks.push(
      names.includes(helo)
        ? passed(route.name, { id: 'helo_matches_ptr', impact: 'degraded', summary: `PRESEND_HELO_NAME ${route.heloName} is the PTR name of ${ip}`, meaning: 'The HELO name and the reverse name agree, as receivers expect.' })
        : failed(route.name, {
            id: 'helo_matches_ptr',
            impact: 'degraded',
            summary: `PRESEND_HELO_NAME ${route.heloName} is not the PTR name of ${ip} (${names.join(', ')})`,
            meaning: 'A HELO name that is not the client\'s reverse name is a spam-bot sign for many filters; some receivers refuse it.',
            action: `Set PRESEND_HELO_NAME to ${confirmed[0] ?? names[0] ?? 'the PTR name'}, or change the PTR to ${route.heloName}.`,
            detail: { ptr: names },
          }),
    );
  }
  return checks;
}

/** The HELO name has an address (receivers look it up: Postfix reject_unknown_helo_hostname). */
export async function heloResolvesCheck(route: EgressRoute, dns: DiagnosticDnsClient): Promise<HealthCheck> {
  const a = await dns.a(route.heloName);
  const found = a.ok && a.records.length > 0 ? a : await dns.aaaa(route.heloName);
  if (found.ok && found.records.length > 0) {
    return passed(route.name, { id: 'helo_resolves', impact: 'degraded', summary: `PRESEND_HELO_NAME ${route.heloName} resolves to ${found.records.join(', ')}`, meaning: 'Receivers that look the HELO name up find it.' });
  }
  return failed(route.name, {
    id: 'helo_resolves',
    impact: 'degraded',
    summary: `PRESEND_HELO_NAME ${route.heloName} has no A or AAAA record`,
    meaning: 'Receivers that check the HELO name (Postfix reject_unknown_helo_hostname) refuse the session.',
    action: `Publish an A (or AAAA) record for ${route.heloName} with the egress address.`,
  });
}

export async function blocklistChecks(route: EgressRoute, ip: string, zones: readonly string[], dns: DiagnosticDnsClient): Promise<HealthCheck[]> {
  const answers = await Promise.all(zones.map(async (zone) => ({ zone, answer: await lookupBlocklist(dns, zone, ip) })));
  return answers.map(({ zone, answer }) => {
    const id = `dnsbl:${zone}`;
    switch (answer.kind) {
      case 'not_listed':
        return passed(route.name, { id, impact: 'degraded', summary: `${ip} is not on ${zone}`, meaning: 'Receivers that use this blocklist let the prober in.' });
      case 'listed':
        return failed(route.name, {
          id,
          impact: 'degraded',
          summary: `${ip} is LISTED on ${zone} (${answer.codes.join(', ')})${answer.reason ? `: ${answer.reason}` : ''}`,
          meaning: 'Receivers that use this blocklist refuse the prober: their addresses end UNKNOWN (probe_blocked).',
          action: `Find out why on ${zone}'s lookup page, fix the cause and request delisting; meanwhile probe from another address.`,
          detail: { codes: answer.codes, reason: answer.reason },
        });
      case 'refused':
        return warned(route.name, {
          id,
          impact: 'degraded',
          summary: `${zone} did not answer for ${ip}: ${answer.meaning}`,
          meaning: 'This is not a listing. Whether the address is listed is unknown.',
          action: 'Query blocklists through a resolver of your own (e.g. a local unbound) rather than a public one, or register for the list\'s query service; then run the doctor again.',
          detail: { code: answer.code },
        });
      case 'not_a_blocklist_answer':
        return warned(route.name, {
          id,
          impact: 'degraded',
          summary: `${zone} answered ${answer.codes.join(', ')} for ${ip}, which is no blocklist answer`,
          meaning: 'The resolver rewrites "no such name" into an address of its own: blocklist lookups through it mean nothing.',
          action: 'Use a resolver that returns NXDOMAIN as it is (PRESEND_DNS_SERVERS).',
          detail: { codes: answer.codes },
        });
      case 'lookup_failed':
        return warned(route.name, { id, impact: 'degraded', summary: `the lookup on ${zone} failed (${answer.detail})`, meaning: 'Whether the address is listed is unknown.', action: 'Check the DNS resolver and run the doctor again.' });
    }
  });
}

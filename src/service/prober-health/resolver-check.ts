/**
 * The DNS resolver the engine uses (PRESEND_DNS_SERVERS, or the system's): every verdict
 * starts with an MX lookup, so a resolver that does not answer, or answers A but not MX
 * queries (some filtering forwarders), makes every address TRANSIENT.
 */
import type { HostPort } from '../../config.js';
import type { DiagnosticDnsClient } from '../../core/dns/resolver.js';
import { failed, passed, type HealthCheck } from './health-check.js';

/** A name every resolver can answer for: the sender's domain when there is one. */
export async function resolverCheck(dns: DiagnosticDnsClient, servers: readonly HostPort[], name: string): Promise<HealthCheck> {
  const which = servers.length > 0 ? servers.map((s) => `${s.host}:${s.port}`).join(', ') : 'the system resolver';
  // NXDOMAIN and NODATA are answers; only silence, SERVFAIL and errors are not.
  const answered = (r: { ok: boolean; failure?: string }): boolean => r.ok || r.failure === 'nxdomain' || r.failure === 'nodata';
  const [a, mx] = await Promise.all([dns.a(name), dns.mx(name)]);
  const detail = { servers: which, a: a.ok ? 'answer' : a.failure, mx: mx.ok ? 'answer' : mx.failure };
  if (answered(a) && answered(mx)) {
    return passed(null, { id: 'resolver', impact: 'broken', summary: `${which} answers A and MX queries (asked for ${name})`, meaning: 'The engine can look up mail servers.', detail });
  }
  if (answered(a)) {
    return failed(null, {
      id: 'resolver',
      impact: 'broken',
      summary: `${which} answers A queries but not MX queries (${mx.ok ? '' : mx.failure} for ${name})`,
      meaning: 'Every check starts with an MX lookup: addresses end TRANSIENT (dns_servfail, dns_timeout).',
      action: 'Use a resolver that answers MX queries (PRESEND_DNS_SERVERS), e.g. a local unbound.',
      detail,
    });
  }
  return failed(null, {
    id: 'resolver',
    impact: 'broken',
    summary: `${which} does not answer (${a.ok ? '' : a.failure} for ${name})`,
    meaning: 'No DNS, no verification: every address ends TRANSIENT.',
    action: 'Check PRESEND_DNS_SERVERS (or /etc/resolv.conf) and that this host can reach the resolver on port 53 (UDP and TCP).',
    detail,
  });
}

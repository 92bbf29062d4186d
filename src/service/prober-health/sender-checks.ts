/**
 * The probe sender's domain (PRESEND_MAIL_FROM): a receiver may check that the MAIL FROM
 * domain takes mail (a bounce to it must be deliverable: Postfix reject_unknown_sender_domain)
 * and that its SPF record lets the prober's address send for it (RFC 7208).
 */
import type { DiagnosticDnsClient } from '../../core/dns/resolver.js';
import { failed, passed, warned, type HealthCheck } from './health-check.js';
import type { EgressRoute } from './route-checks.js';
import { SpfEvaluator } from './spf.js';

export function senderDomainOf(mailFrom: string): string {
  return (mailFrom.split('@').at(-1) ?? '').toLowerCase();
}

export async function senderDomainCheck(domain: string, dns: DiagnosticDnsClient): Promise<HealthCheck> {
  const id = 'sender_domain';
  const mx = await dns.mx(domain);
  if (mx.ok && mx.records.length > 0) {
    if (mx.records.length === 1 && (mx.records[0]?.exchange === '' || mx.records[0]?.exchange === '.')) {
      return failed(null, {
        id,
        impact: 'degraded',
        summary: `${domain} (PRESEND_MAIL_FROM's domain) publishes a null MX: it takes no mail (RFC 7505)`,
        meaning: 'Receivers may refuse a MAIL FROM whose domain cannot get a bounce.',
        action: `Give ${domain} MX records of a server that accepts mail for PRESEND_MAIL_FROM.`,
      });
    }
    const hosts = mx.records.map((r) => r.exchange).join(', ');
    return passed(null, { id, impact: 'degraded', summary: `${domain} (PRESEND_MAIL_FROM's domain) has MX ${hosts}`, meaning: 'A bounce to the probe sender can be delivered.' });
  }
  if (!mx.ok && mx.failure !== 'nxdomain' && mx.failure !== 'nodata') {
    return warned(null, { id, impact: 'degraded', summary: `the MX lookup of ${domain} failed (${mx.failure})`, meaning: 'Whether the probe sender can get bounces is unknown.', action: 'Check the DNS resolver and run the doctor again.' });
  }
  const a = await dns.a(domain);
  if (a.ok && a.records.length > 0) {
    return passed(null, { id, impact: 'degraded', summary: `${domain} has no MX but an A record (${a.records.join(', ')}): mail goes there (RFC 5321 §5.1)`, meaning: 'A bounce to the probe sender can be delivered, if that host takes mail.' });
  }
  return failed(null, {
    id,
    impact: 'degraded',
    summary: `${domain} (PRESEND_MAIL_FROM's domain) has no MX and no A record`,
    meaning: 'Receivers that check the sender domain (Postfix reject_unknown_sender_domain) refuse every probe.',
    action: `Use a PRESEND_MAIL_FROM at a domain of yours that takes mail, or give ${domain} an MX record.`,
  });
}

export async function spfCheck(route: EgressRoute, ip: string, domain: string, dns: DiagnosticDnsClient): Promise<HealthCheck> {
  const id = 'spf';
  const outcome = await new SpfEvaluator(dns).check(ip, domain);
  const detail = { result: outcome.result, record: outcome.record, explanation: outcome.explanation, lookups: outcome.lookups };
  const allow = `Add the egress address to ${domain}'s SPF record (e.g. "ip4:${ip}" before its "all"), or include a record that lists it.`;
  switch (outcome.result) {
    case 'pass':
      return passed(route.name, { id, impact: 'degraded', summary: `SPF of ${domain} allows ${ip} (${outcome.explanation})`, meaning: 'Receivers that check SPF on the probe\'s MAIL FROM see pass.', detail });
    case 'fail':
    case 'softfail':
      return failed(route.name, {
        id,
        impact: 'degraded',
        summary: `SPF of ${domain} gives ${outcome.result} for ${ip} (${outcome.explanation})`,
        meaning: 'Receivers that check SPF see a sender that is not allowed to use this domain: some refuse the probe, others count it against the prober.',
        action: allow,
        detail,
      });
    case 'none':
      return warned(route.name, { id, impact: 'degraded', summary: `${domain} has no SPF record`, meaning: 'Receivers see SPF none for the probes: some treat that as a spam sign.', action: `Publish an SPF record for ${domain} that lists ${ip}, e.g. "v=spf1 ip4:${ip} -all".`, detail });
    case 'neutral':
      return warned(route.name, { id, impact: 'degraded', summary: `SPF of ${domain} gives neutral for ${ip} (${outcome.explanation})`, meaning: 'The record neither allows nor forbids the prober.', action: allow, detail });
    case 'permerror':
      return failed(route.name, { id, impact: 'degraded', summary: `SPF of ${domain} is broken: ${outcome.explanation}`, meaning: 'Receivers read a broken record as permerror, and many then refuse or distrust the mail.', action: `Fix ${domain}'s SPF record (RFC 7208).`, detail });
    case 'temperror':
      return warned(route.name, { id, impact: 'degraded', summary: `SPF of ${domain} could not be evaluated: ${outcome.explanation}`, meaning: 'A DNS failure stopped the evaluation.', action: 'Check the DNS resolver and run the doctor again.', detail });
    case 'unsupported':
      return warned(route.name, { id, impact: 'degraded', summary: `SPF of ${domain} not evaluated: ${outcome.explanation}`, meaning: 'Whether the record allows the prober is unknown to the doctor.', action: `Check it with a full SPF validator for ${ip}.`, detail });
  }
}

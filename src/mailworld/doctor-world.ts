/**
 * A world for `presend doctor`: the DNS an operator's prober depends on, with one egress
 * address per situation the doctor must tell apart. The probe sender's domain (presend.test)
 * has a canary MX and an SPF record; each egress address has (or lacks) a PTR record that does
 * (or does not) forward-confirm; the blocklists answer as Spamhaus ZEN, Barracuda and SpamCop
 * would, under their real zone names, so the doctor's default list is what the tests exercise.
 *
 * The egress that the canary sees is the client's source address (127.0.0.1 on loopback); the
 * others are named to the doctor with PRESEND_EGRESS_IP, as an operator behind a NAT does.
 */
import { reverseName } from '../core/dns/reverse-name.js';
import type { WorldSpec } from './spec.js';

export { reverseName };

export const DOCTOR_SENDER_DOMAIN = 'presend.test';

/** The egress addresses of the doctor world and what each is like. */
export const DOCTOR_EGRESS = {
  /** The loopback source address: PTR probe.presend.test, which resolves back to it; on no blocklist. */
  clean: { ip: '127.0.0.1', helo: 'probe.presend.test' },
  /** Forward-confirmed PTR, but on Spamhaus ZEN (SBL, 127.0.0.2) and Barracuda. */
  listed: { ip: '127.0.0.10', helo: 'probe10.presend.test' },
  /** Spamhaus ZEN answers 127.255.255.254 for it: "query via public/open resolver", not a listing. */
  publicResolver: { ip: '127.0.0.11', helo: 'probe11.presend.test' },
  /** Its PTR names elsewhere.presend.test, whose A record is another address: no FCrDNS. */
  ptrMismatch: { ip: '127.0.0.12', helo: 'probe12.presend.test' },
  /** No PTR record at all. */
  noPtr: { ip: '127.0.0.13', helo: 'probe13.presend.test' },
} as const;

/** The canary MX of presend.test: a plain, well-behaved mail server. */
export const DOCTOR_CANARY = { name: 'mx.presend.test', ip: '127.0.2.1' } as const;

export function doctorWorld(): WorldSpec {
  const { clean, listed, publicResolver, ptrMismatch, noPtr } = DOCTOR_EGRESS;
  const forwardConfirmed = [clean, listed, publicResolver].map(({ ip, helo }) => [
    { name: reverseName(ip), ptr: [helo] },
    { name: helo, a: [ip] },
  ]);
  return {
    hosts: [{ name: DOCTOR_CANARY.name, ip: DOCTOR_CANARY.ip, greeting: DOCTOR_CANARY.name }],
    domains: [
      {
        name: DOCTOR_SENDER_DOMAIN,
        mx: [{ host: DOCTOR_CANARY.name, preference: 10 }],
        // a: the clean egress by its host name; include: the rest of the prober's network.
        txt: ['v=spf1 a:probe.presend.test include:_spf.presend.test -all'],
        mailboxes: { probe: 'accept', postmaster: 'accept' },
      },
      // A sender domain without SPF, and one whose SPF leaves the egress out.
      { name: 'nospf.test', mx: [{ host: DOCTOR_CANARY.name, preference: 10 }] },
      { name: 'strict.test', mx: [{ host: DOCTOR_CANARY.name, preference: 10 }], txt: ['v=spf1 ip4:192.0.2.0/24 -all'] },
    ],
    names: [
      ...forwardConfirmed.flat(),
      { name: '_spf.presend.test', txt: ['v=spf1 ip4:127.0.0.0/24 ~all'] },
      { name: reverseName(ptrMismatch.ip), ptr: ['elsewhere.presend.test'] },
      { name: 'elsewhere.presend.test', a: ['127.0.0.99'] },
      { name: ptrMismatch.helo, a: [ptrMismatch.ip] },
      { name: noPtr.helo, a: [noPtr.ip] },
      // Spamhaus ZEN: 127.0.0.2 is an SBL listing; 127.255.255.254 refuses a public resolver
      // (Spamhaus, "DNSBL return codes: technical update", https://www.spamhaus.org/news/article/788/).
      { name: reverseName(listed.ip, 'zen.spamhaus.org'), a: ['127.0.0.2'], txt: ['Listed by SBL, see https://check.spamhaus.org/'] },
      { name: reverseName(publicResolver.ip, 'zen.spamhaus.org'), a: ['127.255.255.254'] },
      { name: reverseName(listed.ip, 'b.barracudacentral.org'), a: ['127.0.0.2'] },
    ],
  };
}

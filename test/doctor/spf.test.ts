/** The SPF evaluation of the probe sender's domain (RFC 7208), over a DNS of fixed answers. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MxRecord } from 'node:dns';
import type { DiagnosticDnsClient, DnsAnswer } from '../../src/core/dns/resolver.js';
import { SpfEvaluator, type SpfResult } from '../../src/service/prober-health/spf.js';

interface Zone {
  txt?: Record<string, string[]>;
  a?: Record<string, string[]>;
  aaaa?: Record<string, string[]>;
  mx?: Record<string, string[]>;
  servfail?: string[];
}

function fakeDns(zone: Zone): DiagnosticDnsClient & { queries: number } {
  const client = {
    queries: 0,
    mx: async (name: string) => lookup(zone.mx, name, (hosts) => hosts.map((exchange, i): MxRecord => ({ exchange, priority: 10 * (i + 1) }))),
    a: async (name: string) => lookup(zone.a, name, (x) => x),
    aaaa: async (name: string) => lookup(zone.aaaa, name, (x) => x),
    cname: async (): Promise<DnsAnswer<string>> => ({ ok: false, failure: 'nodata', detail: '' }),
    txt: async (name: string) => lookup(zone.txt, name, (x) => x),
    ptr: async (): Promise<DnsAnswer<string>> => ({ ok: false, failure: 'nxdomain', detail: '' }),
  };
  function lookup<T>(table: Record<string, string[]> | undefined, name: string, map: (records: string[]) => T[]): DnsAnswer<T> {
    client.queries += 1;
    if (zone.servfail?.includes(name)) return { ok: false, failure: 'servfail', detail: 'SERVFAIL' };
    const records = table?.[name];
    return records ? { ok: true, records: map(records) } : { ok: false, failure: 'nxdomain', detail: 'NXDOMAIN' };
  }
  return client;
}

async function spf(zone: Zone, ip: string, domain = 'sender.test'): Promise<SpfResult> {
  return (await new SpfEvaluator(fakeDns(zone)).check(ip, domain)).result;
}

describe('SPF of the probe sender', () => {
  const cases: Array<[string, Zone, string, SpfResult]> = [
    ['ip4 with a prefix matches', { txt: { 'sender.test': ['v=spf1 ip4:192.0.2.0/24 -all'] } }, '192.0.2.77', 'pass'],
    ['an address outside every term meets -all', { txt: { 'sender.test': ['v=spf1 ip4:192.0.2.0/24 -all'] } }, '198.51.100.1', 'fail'],
    ['~all is softfail', { txt: { 'sender.test': ['v=spf1 ip4:192.0.2.1 ~all'] } }, '198.51.100.1', 'softfail'],
    ['no matching term and no all is neutral', { txt: { 'sender.test': ['v=spf1 ip4:192.0.2.1'] } }, '198.51.100.1', 'neutral'],
    ['ip6 matches by prefix', { txt: { 'sender.test': ['v=spf1 ip6:2001:db8::/32 -all'] } }, '2001:db8:5::1', 'pass'],
    ['an IPv6 address never matches ip4', { txt: { 'sender.test': ['v=spf1 ip4:0.0.0.0/0 -all'] } }, '2001:db8::1', 'fail'],
    ['a: the domain\'s own address', { txt: { 'sender.test': ['v=spf1 a -all'] }, a: { 'sender.test': ['203.0.113.9'] } }, '203.0.113.9', 'pass'],
    ['a:name/24 with a prefix', { txt: { 'sender.test': ['v=spf1 a:out.sender.test/24 -all'] }, a: { 'out.sender.test': ['203.0.113.1'] } }, '203.0.113.200', 'pass'],
    ['a/24 without a colon', { txt: { 'sender.test': ['v=spf1 a/24 -all'] }, a: { 'sender.test': ['203.0.113.1'] } }, '203.0.113.200', 'pass'],
    ['mx: an address of an MX host', { txt: { 'sender.test': ['v=spf1 mx -all'] }, mx: { 'sender.test': ['mx1.sender.test', 'mx2.sender.test'] }, a: { 'mx1.sender.test': ['192.0.2.1'], 'mx2.sender.test': ['192.0.2.2'] } }, '192.0.2.2', 'pass'],
    ['include: a pass of the included record matches', { txt: { 'sender.test': ['v=spf1 include:_spf.esp.test -all'], '_spf.esp.test': ['v=spf1 ip4:198.51.100.0/24 -all'] } }, '198.51.100.5', 'pass'],
    ['include: a fail of the included record does not match, the next term decides', { txt: { 'sender.test': ['v=spf1 include:_spf.esp.test ?all'], '_spf.esp.test': ['v=spf1 ip4:198.51.100.0/24 -all'] } }, '192.0.2.5', 'neutral'],
    ['include of a domain without SPF is permerror', { txt: { 'sender.test': ['v=spf1 include:nothing.test -all'] } }, '192.0.2.5', 'permerror'],
    ['redirect when nothing matched', { txt: { 'sender.test': ['v=spf1 ip4:192.0.2.1 redirect=_spf.other.test'], '_spf.other.test': ['v=spf1 ip4:198.51.100.0/24 -all'] } }, '198.51.100.9', 'pass'],
    ['redirect is ignored when all matched first', { txt: { 'sender.test': ['v=spf1 -all redirect=_spf.other.test'], '_spf.other.test': ['v=spf1 +all'] } }, '198.51.100.9', 'fail'],
    ['exists: an A record at the name', { txt: { 'sender.test': ['v=spf1 exists:allowed.sender.test -all'] }, a: { 'allowed.sender.test': ['127.0.0.2'] } }, '198.51.100.9', 'pass'],
    ['no TXT record at all is none', {}, '192.0.2.1', 'none'],
    ['TXT records without v=spf1 are none', { txt: { 'sender.test': ['google-site-verification=abc'] } }, '192.0.2.1', 'none'],
    ['two SPF records are permerror', { txt: { 'sender.test': ['v=spf1 -all', 'v=spf1 +all'] } }, '192.0.2.1', 'permerror'],
    ['an unknown mechanism is permerror', { txt: { 'sender.test': ['v=spf1 frobnicate -all'] } }, '192.0.2.1', 'permerror'],
    ['macros are not guessed at', { txt: { 'sender.test': ['v=spf1 exists:%{i}._spf.sender.test -all'] } }, '192.0.2.1', 'unsupported'],
    ['a SERVFAIL is temperror', { servfail: ['sender.test'] }, '192.0.2.1', 'temperror'],
    ['ptr never matches (RFC 7208 §5.5)', { txt: { 'sender.test': ['v=spf1 ptr ?all'] } }, '192.0.2.1', 'neutral'],
  ];
  for (const [name, zone, ip, expected] of cases) {
    test(`${name}: ${expected}`, async () => assert.equal(await spf(zone, ip), expected));
  }

  test('more than 10 DNS-querying terms are permerror (RFC 7208 §4.6.4), and the evaluation stops there', async () => {
    const txt: Record<string, string[]> = { 'sender.test': ['v=spf1 include:i0.test -all'] };
    for (let i = 0; i < 20; i++) txt[`i${i}.test`] = [`v=spf1 include:i${i + 1}.test -all`];
    const dns = fakeDns({ txt });
    const outcome = await new SpfEvaluator(dns).check('192.0.2.1', 'sender.test');
    assert.equal(outcome.result, 'permerror');
    assert.match(outcome.explanation, /more than 10 DNS-querying terms/);
    assert.ok(dns.queries <= 12, `${dns.queries} queries`);
  });

  test('an include loop ends in permerror, not in an endless evaluation', async () => {
    assert.equal(await spf({ txt: { 'sender.test': ['v=spf1 include:sender.test -all'] } }, '192.0.2.1'), 'permerror');
  });

  test('more than two lookups that find nothing are permerror', async () => {
    assert.equal(await spf({ txt: { 'sender.test': ['v=spf1 a:n1.test a:n2.test a:n3.test -all'] } }, '192.0.2.1'), 'permerror');
  });
});

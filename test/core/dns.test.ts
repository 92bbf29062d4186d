import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createDnsClient, type DnsClient } from '../../src/core/dns/resolver.js';
import { lookupHostAddresses, lookupMailHosts } from '../../src/core/dns/mail-hosts.js';
import { BIG_MX_COUNT, defaultWorld, startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { startEngineWorld, TEST_DNS_TIMEOUT_MS } from './world-engine.js';

const OPTIONS = { maxHosts: 10, maxCnameDepth: 8 };

describe('DNS against the mail world DNS server', () => {
  let world: MailWorld;
  let dns: DnsClient;

  before(async () => {
    const spec = defaultWorld();
    spec.hosts.push({ name: 'mx-a.order.test' }, { name: 'mx-b.order.test' }, { name: 'mx-c.order.test' });
    spec.domains.push(
      {
        name: 'order.test',
        mx: [
          { host: 'mx-c.order.test', preference: 30 },
          { host: 'mx-a.order.test', preference: 10 },
          { host: 'mx-b.order.test', preference: 20 },
        ],
      },
      { name: 'chain1.test', cname: 'chain2.test' },
    );
    spec.names = [...(spec.names ?? []), { name: 'chain2.test', cname: 'acme.test' }];
    world = await startMailWorld(spec);
    dns = createDnsClient({ servers: [{ host: world.dns.host, port: world.dns.port }], timeoutMs: TEST_DNS_TIMEOUT_MS });
  });
  after(() => world.close());

  test('MX hosts come back in preference order', async () => {
    const hosts = await lookupMailHosts(dns, 'order.test', OPTIONS);
    assert.equal(hosts.kind, 'hosts');
    assert.deepEqual(hosts.kind === 'hosts' && hosts.hosts.map((h) => h.name), ['mx-a.order.test', 'mx-b.order.test', 'mx-c.order.test']);
  });

  test('a null MX (RFC 7505) is final', async () => {
    assert.deepEqual(await lookupMailHosts(dns, 'nullmx.test', OPTIONS), { kind: 'null_mx' });
  });

  test('without MX records the domain itself is the implicit MX', async () => {
    assert.deepEqual(await lookupMailHosts(dns, 'a-only.test', OPTIONS), { kind: 'hosts', hosts: [{ name: 'a-only.test', preference: 0 }], implicit: true });
  });

  test('no MX and no A/AAAA is its own answer', async () => {
    assert.deepEqual(await lookupMailHosts(dns, 'no-mail.test', OPTIONS), { kind: 'no_mx_no_a' });
  });

  test('a CNAME chain is followed to the MX records of its target', async () => {
    for (const name of ['alias.test', 'chain1.test']) {
      const hosts = await lookupMailHosts(dns, name, OPTIONS);
      assert.deepEqual(hosts.kind === 'hosts' && hosts.hosts.map((h) => h.name), ['mx1.acme.test', 'mx2.acme.test'], name);
    }
  });

  test('NXDOMAIN, SERVFAIL and timeout are kept apart', async () => {
    assert.deepEqual(await lookupMailHosts(dns, 'gone.test', OPTIONS), { kind: 'nxdomain' });
    const servfail = await lookupMailHosts(dns, 'servfail.test', OPTIONS);
    assert.equal(servfail.kind === 'dns_failure' && servfail.failure, 'servfail');
    const timeout = await lookupMailHosts(dns, 'dns-timeout.test', OPTIONS);
    assert.equal(timeout.kind === 'dns_failure' && timeout.failure, 'timeout');
  });

  test('a CNAME loop ends as a DNS failure, not a hang', async () => {
    const loop = await lookupMailHosts(dns, 'cname-loop.test', OPTIONS);
    assert.ok(loop.kind === 'dns_failure' || loop.kind === 'cname_loop', loop.kind);
  });

  test(`${BIG_MX_COUNT} MX records arrive over TCP and are cut to the first few by preference`, async () => {
    const tcpBefore = world.dns.queries.tcp;
    const hosts = await lookupMailHosts(dns, 'big-mx.test', OPTIONS);
    assert.equal(hosts.kind, 'hosts');
    if (hosts.kind !== 'hosts') return;
    assert.equal(hosts.hosts.length, 10);
    assert.equal(hosts.hosts[0]?.name, 'mx0000.big-mx.test');
    assert.ok(world.dns.queries.tcp > tcpBefore, 'the truncated UDP answer was retried over TCP');
  });

  test('MX host addresses resolve; an unknown host is unresolvable', async () => {
    const known = await lookupHostAddresses(dns, 'mx1.acme.test');
    assert.deepEqual(known, { ok: true, addresses: [world.hostIp('mx1.acme.test')] });
    const unknown = await lookupHostAddresses(dns, 'nothing-here.acme.test');
    assert.equal(unknown.ok, false);
  });
});

describe('DNS through the engine', () => {
  test('concurrent checks of one domain share one DNS query, and later ones are served from the cache', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    const before = ew.world.dns.queries.udp + ew.world.dns.queries.tcp;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ew.engine.verify(`user${i}@nullmx.test`)));
    assert.ok(results.every((r) => r.envelope.verdict === 'UNDELIVERABLE_NO_MAIL_SERVER'));
    const afterFirst = ew.world.dns.queries.udp + ew.world.dns.queries.tcp;
    assert.equal(afterFirst - before, 1, 'one MX query for twenty addresses');
    await ew.engine.verify('late@nullmx.test');
    assert.equal(ew.world.dns.queries.udp + ew.world.dns.queries.tcp, afterFirst, 'the MX set was cached');
  });

  test('a DNS server given as host:port is used (PRESEND_DNS_SERVERS)', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    assert.notEqual(ew.config.dnsServers[0]?.port, 53);
    const result = await ew.engine.verify('x@gone.test');
    assert.deepEqual(result.envelope.reasons, ['nxdomain']);
  });

  test('a DNS server that does not answer at all is a non-verdict, never NXDOMAIN', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    const engine = ew.another({ dnsServers: [{ host: '127.0.0.1', port: 1 }] });
    const result = await engine.verify('alice@acme.test');
    assert.equal(result.envelope.verdict, 'TRANSIENT');
    assert.ok(['dns_error', 'dns_timeout'].includes(result.envelope.reasons[0] ?? ''), result.envelope.reasons.join(','));
  });
});

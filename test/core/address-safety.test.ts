import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedIpv4, isLoopbackAddress, isPrivateAddress, mayProbeAddress, parsePrivateMxAllowance } from '../../src/core/dns/address-safety.js';
import { defaultWorld } from '../../src/mailworld/index.js';
import { startEngineWorld } from './world-engine.js';

/** [address, refused?, why]. */
const ADDRESSES: Array<[address: string, refused: boolean, why: string]> = [
  // IPv4
  ['127.0.0.1', true, 'loopback'],
  ['10.0.0.25', true, 'RFC 1918'],
  ['172.16.5.4', true, 'RFC 1918'],
  ['172.31.255.255', true, 'RFC 1918, last address'],
  ['192.168.1.1', true, 'RFC 1918'],
  ['100.64.0.1', true, 'shared address space (RFC 6598)'],
  ['169.254.10.25', true, 'link-local'],
  ['0.0.0.0', true, 'this network'],
  ['224.0.0.1', true, 'multicast'],
  ['255.255.255.255', true, 'broadcast'],
  ['192.0.2.1', true, 'documentation (RFC 5737)'],
  ['203.0.113.7', true, 'documentation (RFC 5737)'],
  ['8.8.8.8', false, 'public'],
  ['172.32.0.1', false, 'just outside 172.16/12'],
  ['100.128.0.1', false, 'just outside 100.64/10'],
  // IPv6 plain
  ['::1', true, 'loopback'],
  ['::', true, 'unspecified'],
  ['fc00::1', true, 'unique local'],
  ['fd12:3456::1', true, 'unique local'],
  ['fe80::1', true, 'link-local'],
  ['fe80::1%eth0', true, 'link-local with a zone index'],
  ['ff02::1', true, 'multicast'],
  ['2001:db8::25', true, 'documentation (RFC 3849)'],
  ['100::1', true, 'discard-only (RFC 6666)'],
  ['2607:f8b0:4004:c07::1a', false, 'public (Google)'],
  ['2001:4860:4860::8888', false, 'public 2001:4860::/32, not Teredo'],
  // IPv4-mapped (RFC 4291 §2.5.5.2), dotted and hex
  ['::ffff:10.0.0.1', true, 'IPv4-mapped private'],
  ['::ffff:127.0.0.1', true, 'IPv4-mapped loopback'],
  ['::ffff:a00:1', true, 'IPv4-mapped private, hex form'],
  ['::ffff:8.8.8.8', false, 'IPv4-mapped public'],
  // NAT64 (RFC 6052, RFC 8215)
  ['64:ff9b::10.0.0.1', true, 'NAT64 well-known prefix to a private IPv4'],
  ['64:ff9b::a00:1', true, 'NAT64 to a private IPv4, hex form'],
  ['64:ff9b::7f00:1', true, 'NAT64 to loopback'],
  ['64:ff9b::a9fe:a19', true, 'NAT64 to link-local 169.254.10.25'],
  ['64:ff9b::808:808', false, 'NAT64 to a public IPv4'],
  ['64:ff9b:1::808:808', true, 'local-use NAT64 prefix: refused whole'],
  // 6to4 (RFC 3056)
  ['2002:a00:1::1', true, '6to4 embedding 10.0.0.1'],
  ['2002:7f00:1::', true, '6to4 embedding 127.0.0.1'],
  ['2002:c0a8:101::1', true, '6to4 embedding 192.168.1.1'],
  ['2002:808:808::1', false, '6to4 embedding a public IPv4'],
  // IPv4-compatible (deprecated, RFC 4291 §2.5.5.1)
  ['::10.0.0.1', true, 'IPv4-compatible private'],
  ['::8.8.8.8', true, 'IPv4-compatible, even public: refused whole'],
  ['::a00:1', true, 'IPv4-compatible, hex form'],
  // Teredo (RFC 4380): refused whole, whatever the obfuscated client address
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true, 'Teredo (client 192.0.2.45 obfuscated)'],
  ['2001:0:808:808:0:f5f7:f5f7:f5f6', true, 'Teredo, server and client public'],
  // Not an IP
  ['mx.example.com', true, 'a name, not an address'],
  ['', true, 'empty'],
];

describe('the private-address filter (PRESEND_ALLOW_PRIVATE_MX=false)', () => {
  for (const [address, refused, why] of ADDRESSES) {
    test(`${address || '(empty)'} is ${refused ? 'refused' : 'allowed'} (${why})`, () => {
      assert.equal(isPrivateAddress(address), refused);
      assert.equal(mayProbeAddress(address, false), !refused);
    });
  }

  test('the IPv4 inside a transition form is read from it', () => {
    assert.equal(embeddedIpv4('64:ff9b::10.0.0.1'), '10.0.0.1');
    assert.equal(embeddedIpv4('2002:c0a8:101::1'), '192.168.1.1');
    assert.equal(embeddedIpv4('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(embeddedIpv4('2607:f8b0:4004:c07::1a'), null);
    assert.equal(embeddedIpv4('10.0.0.1'), null);
  });
});

describe('PRESEND_ALLOW_PRIVATE_MX=loopback', () => {
  const LOOPBACK = ['127.0.0.1', '127.0.0.25', '127.255.255.254', '::1', '::ffff:127.0.0.1', '::ffff:7f00:19'];
  const STILL_REFUSED = ['10.0.0.25', '169.254.10.25', '192.168.1.1', '172.16.0.1', '100.64.0.1', 'fd00::1', 'fe80::1', '64:ff9b::7f00:1', '2002:7f00:1::', '::127.0.0.1'];
  for (const address of LOOPBACK) {
    test(`${address} may be probed`, () => {
      assert.equal(isLoopbackAddress(address), true);
      assert.equal(mayProbeAddress(address, 'loopback'), true);
    });
  }
  for (const address of STILL_REFUSED) {
    test(`${address} stays refused (not loopback)`, () => assert.equal(mayProbeAddress(address, 'loopback'), false));
  }
  test('public addresses stay allowed', () => {
    assert.equal(mayProbeAddress('8.8.8.8', 'loopback'), true);
    assert.equal(mayProbeAddress('2607:f8b0:4004:c07::1a', 'loopback'), true);
  });
  test('true opens every private range, never a name', () => {
    assert.equal(mayProbeAddress('10.0.0.25', true), true);
    assert.equal(mayProbeAddress('mx.example.com', true), false);
  });
});

describe('reading PRESEND_ALLOW_PRIVATE_MX', () => {
  const CASES: Array<[string | undefined, false | true | 'loopback' | null]> = [
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['no', false],
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['loopback', 'loopback'],
    [' Loopback ', 'loopback'],
    ['lan', null],
    ['127.0.0.1', null],
  ];
  for (const [raw, expected] of CASES) {
    test(`${JSON.stringify(raw)} → ${String(expected)}`, () => assert.equal(parsePrivateMxAllowance(raw), expected));
  }
});

describe('the engine under PRESEND_ALLOW_PRIVATE_MX=loopback', () => {
  test('verifies mail-world addresses on 127.x and ::1, and refuses 10.0.0.25 and 169.254.10.25 without connecting', async (t) => {
    // The default world publishes nothing outside loopback (presend mailworld prints `loopback`):
    // the private and link-local MX hosts are this test's own.
    const world = defaultWorld();
    world.hosts.push({ name: 'mx.rfc1918.test', ip: '10.0.0.25' }, { name: 'mx.rfc3927.test', ip: '169.254.10.25' });
    world.domains.push(
      { name: 'rfc1918-mx.test', mx: [{ host: 'mx.rfc1918.test', preference: 10 }], mailboxes: { alice: 'accept' } },
      { name: 'rfc3927-mx.test', mx: [{ host: 'mx.rfc3927.test', preference: 10 }], mailboxes: { alice: 'accept' } },
    );
    const ew = await startEngineWorld(world, { allowPrivateMx: 'loopback' });
    t.after(() => ew.close());
    for (const email of ['alice@acme.test', 'nobody@acme.test', 'alice@private-mx.test', 'alice@linklocal-mx.test']) {
      const result = await ew.engine.verify(email);
      assert.equal(result.envelope.verdict, ew.world.expectedVerdict(email), email);
    }
    // Refused before any connection: a connection attempt would end TRANSIENT (nothing listens there).
    for (const email of ['alice@rfc1918-mx.test', 'alice@rfc3927-mx.test']) {
      const result = await ew.engine.verify(email);
      assert.deepEqual([result.envelope.verdict, result.envelope.reasons], ['UNKNOWN', ['private_mx_refused']], email);
    }
    const ipv6 = await ew.engine.verify('alice@ipv6-loopback-mx.test');
    assert.notDeepEqual(ipv6.envelope.reasons, ['private_mx_refused'], '::1 is loopback: it may be probed');
  });
});

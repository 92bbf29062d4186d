/** Blocklist answers: listings, refusals (Spamhaus's public-resolver codes) and no answer at all. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readBlocklistCodes } from '../../src/service/prober-health/dnsbl.js';
import { reverseName } from '../../src/core/dns/reverse-name.js';
import { addressNamedIn } from '../../src/service/prober-health/canary.js';
import { makeReply } from '../../src/core/replies/parse.js';

describe('blocklist answers', () => {
  test('127.0.0.x answers are listings', () => {
    assert.deepEqual(readBlocklistCodes(['127.0.0.2', '127.0.0.4']), { kind: 'listed', codes: ['127.0.0.2', '127.0.0.4'], reason: null });
  });
  for (const [code, words] of [
    ['127.255.255.254', /public or open resolver/],
    ['127.255.255.255', /excessive number of queries/],
    ['127.255.255.252', /mistyped/],
    ['127.255.255.250', /error code/],
    ['127.0.0.1', /refuses this resolver/],
  ] as const) {
    test(`${code} is a refusal to answer, not a listing`, () => {
      const read = readBlocklistCodes([code]);
      assert.equal(read.kind, 'refused');
      assert.match(read.kind === 'refused' ? read.meaning : '', words);
    });
  }
  test('an error code wins over a listing code in the same answer', () => {
    assert.equal(readBlocklistCodes(['127.0.0.2', '127.255.255.254']).kind, 'refused');
  });
  test('an address outside 127/8 is a resolver rewriting NXDOMAIN, not a listing', () => {
    assert.equal(readBlocklistCodes(['198.51.100.7']).kind, 'not_a_blocklist_answer');
  });
});

describe('names and addresses', () => {
  test('reverse names: IPv4 octets and IPv6 nibbles (RFC 5782 §2.1, §2.4)', () => {
    assert.equal(reverseName('192.0.2.99'), '99.2.0.192.in-addr.arpa');
    assert.equal(reverseName('192.0.2.99', 'zen.spamhaus.org'), '99.2.0.192.zen.spamhaus.org');
    assert.equal(reverseName('2001:db8::1', 'zen.spamhaus.org'), `1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.zen.spamhaus.org`);
    assert.equal(reverseName('2001:DB8:0:0:0:0:0:1'), `1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`);
  });
  test('the address an EHLO reply names', () => {
    assert.equal(addressNamedIn(makeReply(250, ['mx.example.com Hello [203.0.113.5]', 'PIPELINING'])), '203.0.113.5');
    assert.equal(addressNamedIn(makeReply(250, ['mx.google.com at your service, [2001:db8::7]'])), '2001:db8::7');
    assert.equal(addressNamedIn(makeReply(250, ['mx.example.com Hello [IPv6:2001:db8::8]'])), '2001:db8::8');
    assert.equal(addressNamedIn(makeReply(250, ['mx.example.com Hello probe.example.com'])), null);
    assert.equal(addressNamedIn(makeReply(250, ['mx.example.com Hello [not-an-ip]'])), null);
  });
});

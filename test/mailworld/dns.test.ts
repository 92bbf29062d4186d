import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { startMailWorld, type MailWorld } from '../../src/mailworld/index.js';

const BIG = 1500;

/** A DNS query for `name`/MX, built by hand (RFC 1035 §4.1), with RD set. */
function mxQuery(name: string, id: number): Buffer {
  const labels = name.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
  const header = Buffer.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 15, 0, 1])]);
}

function udpAsk(port: number, query: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('no UDP answer'));
    }, 2000);
    socket.once('message', (message) => {
      clearTimeout(timer);
      socket.close();
      resolve(message);
    });
    socket.send(query, port, '127.0.0.1');
  });
}

describe('the mail world DNS server', () => {
  let world: MailWorld;
  let resolver: Resolver;

  before(async () => {
    world = await startMailWorld({
      hosts: [
        { name: 'mx1.example.test' },
        { name: 'mx2.example.test' },
        { name: 'mx.private.test', ip: '10.1.2.3' },
        { name: 'mx.linklocal.test', ip: '169.254.1.1' },
        { name: 'mx.v6.test', ip: '::1' },
      ],
      domains: [
        {
          name: 'example.test',
          mx: [
            { host: 'mx2.example.test', preference: 20 },
            { host: 'mx1.example.test', preference: 10 },
          ],
        },
        { name: 'nullmx.test', nullMx: true },
        { name: 'a-only.test', a: ['127.0.0.9'], aaaa: ['::1'] },
        { name: 'gone.test', dns: 'nxdomain' },
        { name: 'broken.test', dns: 'servfail' },
        { name: 'silent.test', dns: 'timeout' },
        { name: 'alias.test', cname: 'alias-2.test' },
        { name: 'loop.test', cname: 'loop-2.test' },
        { name: 'private.test', mx: [{ host: 'mx.private.test', preference: 10 }] },
        { name: 'big.test', mx: Array.from({ length: BIG }, (_, i) => ({ host: `mx${i}.big.test`, preference: i % 100 })) },
      ],
      names: [
        { name: 'alias-2.test', cname: 'example.test' },
        { name: 'loop-2.test', cname: 'loop.test' },
      ],
    });
    resolver = new Resolver({ timeout: 300, tries: 1 });
    resolver.setServers([`${world.dns.host}:${world.dns.port}`]);
  });

  after(() => world.close());

  test('MX records come back with their preferences', async () => {
    const mx = await resolver.resolveMx('example.test');
    assert.deepEqual(
      mx.sort((a, b) => a.priority - b.priority),
      [
        { exchange: 'mx1.example.test', priority: 10 },
        { exchange: 'mx2.example.test', priority: 20 },
      ],
    );
  });

  test('MX host names get A records for the addresses the world gave them', async () => {
    assert.deepEqual(await resolver.resolve4('mx1.example.test'), [world.hostIp('mx1.example.test')]);
    assert.notEqual(world.hostIp('mx1.example.test'), world.hostIp('mx2.example.test'));
    assert.match(world.hostIp('mx2.example.test'), /^127\./);
  });

  test('a null MX is one record with preference 0 and the root as exchange (RFC 7505)', async () => {
    assert.deepEqual(await resolver.resolveMx('nullmx.test'), [{ exchange: '', priority: 0 }]);
  });

  test('a domain with only A and AAAA records has no MX but answers both address queries', async () => {
    await assert.rejects(resolver.resolveMx('a-only.test'), { code: 'ENODATA' });
    assert.deepEqual(await resolver.resolve4('a-only.test'), ['127.0.0.9']);
    assert.deepEqual(await resolver.resolve6('a-only.test'), ['::1']);
  });

  test('MX hosts on private, link-local and IPv6 loopback addresses are published as given', async () => {
    assert.deepEqual(await resolver.resolve4('mx.private.test'), ['10.1.2.3']);
    assert.deepEqual(await resolver.resolve4('mx.linklocal.test'), ['169.254.1.1']);
    assert.deepEqual(await resolver.resolve6('mx.v6.test'), ['::1']);
  });

  test('a CNAME chain is followed to the records of its end', async () => {
    assert.deepEqual(await resolver.resolveCname('alias.test'), ['alias-2.test']);
    const mx = await resolver.resolveMx('alias.test');
    assert.equal(mx.length, 2);
  });

  test('a CNAME loop is SERVFAIL, as a recursive resolver reports it', async () => {
    await assert.rejects(resolver.resolveMx('loop.test'), { code: 'ESERVFAIL' });
  });

  test('names marked nxdomain and names the world does not know are NXDOMAIN', async () => {
    await assert.rejects(resolver.resolveMx('gone.test'), { code: 'ENOTFOUND' });
    await assert.rejects(resolver.resolve4('never-heard-of.test'), { code: 'ENOTFOUND' });
  });

  test('a servfail domain answers SERVFAIL', async () => {
    await assert.rejects(resolver.resolveMx('broken.test'), { code: 'ESERVFAIL' });
  });

  test('a timeout domain never answers', async () => {
    await assert.rejects(resolver.resolveMx('silent.test'), { code: 'ETIMEOUT' });
  });

  test('an answer too big for UDP is truncated with TC set, and comes whole over TCP', async () => {
    const answer = await udpAsk(world.dns.port, mxQuery('big.test', 0x1234));
    assert.equal(answer.readUInt16BE(0), 0x1234);
    assert.ok(answer.length <= 512);
    assert.ok((answer.readUInt16BE(2) & 0x0200) !== 0, 'TC bit set');
    const tcpBefore = world.dns.queries.tcp;
    // 1,500 records over TCP: more than the shared resolver's 300 ms on a busy machine (it failed so under load).
    const patient = new Resolver({ timeout: 5_000, tries: 2 });
    patient.setServers([`${world.dns.host}:${world.dns.port}`]);
    const mx = await patient.resolveMx('big.test');
    assert.equal(mx.length, BIG);
    assert.ok(mx.some((r) => r.exchange === `mx${BIG - 1}.big.test`));
    assert.ok(world.dns.queries.tcp > tcpBefore, 'the resolver retried over TCP');
  });
});

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMailWorld, type HostBehaviour, type MailWorld } from '../../src/mailworld/index.js';
import { SmtpTalk } from './smtp-talk.js';
import { until } from '../until.js';

const BEHAVIOURS: Record<string, HostBehaviour> = {
  'mx.refuse.test': { kind: 'refuse' },
  'mx.tarpit.test': { kind: 'tarpit' },
  'mx.slow.test': { kind: 'slow_banner', delayMs: 300 },
  'mx.trickle.test': { kind: 'trickle_banner', bytesPerSecond: 60 },
  'mx.drop-rcpt.test': { kind: 'drop_after', command: 'RCPT' },
  'mx.drop-ehlo.test': { kind: 'drop_after', command: 'EHLO' },
  'mx.block.test': { kind: 'block_on_connect' },
  'mx.endless.test': { kind: 'endless_multiline' },
  'mx.huge.test': { kind: 'huge_reply', bytes: 2 * 1024 * 1024 },
  'mx.garbled.test': { kind: 'invalid_reply_codes' },
  'mx.tlsfail.test': { kind: 'tls_fail' },
};

describe('hostile simulated MX hosts', () => {
  let world: MailWorld;

  before(async () => {
    world = await startMailWorld({
      hosts: Object.entries(BEHAVIOURS).map(([name, behaviour]) => ({ name, behaviour })),
      domains: [
        {
          name: 'hostile.test',
          mx: Object.keys(BEHAVIOURS).map((host, i) => ({ host, preference: i })),
          mailboxes: { alice: 'accept' },
        },
      ],
    });
  });

  after(() => world.close());

  const open = (host: string): Promise<SmtpTalk> => SmtpTalk.open(world.hostIp(host), world.smtpPort);

  test('a refusing host has nothing listening on its address', async () => {
    await assert.rejects(open('mx.refuse.test'), { code: 'ECONNREFUSED' });
  });

  test('a tarpit accepts the connection but never sends a banner', async () => {
    const talk = await open('mx.tarpit.test');
    await assert.rejects(talk.read(400), /no reply within/);
    assert.equal(talk.received, 0);
    talk.close();
  });

  test('a slow banner arrives late, then the session works normally', async () => {
    const talk = await open('mx.slow.test');
    assert.equal((await talk.read()).code, 220);
    assert.equal((await talk.command('EHLO probe.presend.test')).code, 250);
    await talk.command('MAIL FROM:<probe@presend.test>');
    assert.equal((await talk.command('RCPT TO:<alice@hostile.test>')).code, 250);
    assert.equal((await talk.command('RCPT TO:<bob@hostile.test>')).code, 550);
    talk.close();
  });

  test('a trickled banner comes a byte at a time', async () => {
    const talk = await open('mx.trickle.test');
    const banner = await talk.read();
    assert.equal(banner.code, 220);
    // One write per byte; a busy machine may still deliver a few in one read.
    assert.ok(talk.chunks > 3, `${talk.chunks} chunks`);
    assert.equal((await talk.command('EHLO probe.presend.test')).code, 250);
    talk.close();
  });

  test('drop_after closes the connection on that command without a reply', async () => {
    const talk = await open('mx.drop-rcpt.test');
    assert.equal((await talk.read()).code, 220);
    assert.equal((await talk.command('EHLO probe.presend.test')).code, 250);
    assert.equal((await talk.command('MAIL FROM:<probe@presend.test>')).code, 250);
    await assert.rejects(talk.command('RCPT TO:<alice@hostile.test>'), /closed before a reply/);
    const early = await open('mx.drop-ehlo.test');
    assert.equal((await early.read()).code, 220);
    await assert.rejects(early.command('EHLO probe.presend.test'), /closed before a reply/);
  });

  test('block_on_connect greets with 554 5.7.1 and refuses every command but QUIT', async () => {
    const talk = await open('mx.block.test');
    const banner = await talk.read();
    assert.equal(banner.code, 554);
    assert.match(banner.text, /^554 5\.7\.1 /);
    assert.equal((await talk.command('EHLO probe.presend.test')).code, 503);
    assert.equal((await talk.command('QUIT')).code, 221);
    talk.close();
  });

  test('endless_multiline sends 250- continuation lines that never end, and stops when the client leaves', async () => {
    const talk = await open('mx.endless.test');
    assert.equal((await talk.read()).code, 220);
    talk.write('EHLO probe.presend.test\r\n');
    await until('512 KiB of the endless reply', () => talk.received >= 512 * 1024);
    await assert.rejects(talk.read(100), /no reply within/);
    talk.close();
    await talk.closed;
    // The world notices the client left and ends the session (and its writer) too.
    await until('the world ends the session', () => world.recorder.sessions('mx.endless.test')[0]?.endedAt !== null);
    assert.equal(world.recorder.sessions('mx.endless.test').length, 1);
  });

  test('huge_reply sends megabytes before the last line of the EHLO reply', async () => {
    const talk = await open('mx.huge.test');
    assert.equal((await talk.read()).code, 220);
    const reply = await talk.command('EHLO probe.presend.test', 10_000);
    assert.equal(reply.code, 250);
    assert.ok(talk.received >= 2 * 1024 * 1024);
    talk.close();
  });

  test('invalid_reply_codes answers with lines that are not SMTP replies', async () => {
    const talk = await open('mx.garbled.test');
    assert.equal((await talk.read()).code, 220);
    assert.equal((await talk.command('EHLO probe.presend.test')).text, 'abc hello');
    assert.equal((await talk.command('MAIL FROM:<probe@presend.test>')).text, '999');
    talk.close();
  });

  test('tls_fail offers STARTTLS, says 220, then breaks the TLS handshake', async () => {
    const talk = await open('mx.tlsfail.test');
    assert.equal((await talk.read()).code, 220);
    const ehlo = await talk.command('EHLO probe.presend.test');
    assert.ok(ehlo.lines.some((l) => l.endsWith('STARTTLS')));
    assert.equal((await talk.command('STARTTLS')).code, 220);
    await assert.rejects(talk.startTls());
    talk.close();
  });

  // A tarpit never ends a session and the flood never stops, and the world has no timeout of its
  // own: a close() that waited for its sessions would never resolve (the test's timeout says so
  // in seconds, not minutes). What is checked is that both sessions were under way when close()
  // was called, that close() itself ended them (neither client left), and that nothing more
  // arrived once it had resolved.
  /** At most what the kernel's loopback buffers hold between a writer and its reader. */
  const IN_FLIGHT_BYTES = 1024 * 1024;

  test('the world closes at once even with hostile sessions still open', { timeout: 20_000 }, async () => {
    const spare = await startMailWorld({
      hosts: [{ name: 'mx.pit.test', behaviour: { kind: 'tarpit' } }, { name: 'mx.flood.test', behaviour: { kind: 'endless_multiline' } }],
      domains: [],
    });
    const pit = await SmtpTalk.open(spare.hostIp('mx.pit.test'), spare.smtpPort);
    const flood = await SmtpTalk.open(spare.hostIp('mx.flood.test'), spare.smtpPort);
    flood.write('EHLO probe.presend.test\r\n');
    const session = (host: string) => spare.recorder.sessions(host)[0];
    await until('both hostile sessions under way, the flood flowing', () => session('mx.pit.test')?.endedAt === null && session('mx.flood.test')?.endedAt === null && flood.received > 64 * 1024);
    assert.equal(pit.received, 0, 'the tarpit has said nothing');
    assert.equal(pit.ended || flood.ended, false, 'both clients still connected when the world closes');

    await spare.close();
    const receivedAtClose = flood.received;
    // Neither client leaves: the world's close() is what ends both sessions (the recorder hears of
    // it on each socket's 'close', a turn after close() resolves).
    await Promise.all([pit.closed, flood.closed]);
    await until('the world records both sessions ended', () => session('mx.pit.test')?.endedAt !== null && session('mx.flood.test')?.endedAt !== null);
    assert.equal(pit.received, 0, 'the tarpit session was cut, not finished');
    // What the flood had written before close() may still be in the loopback socket buffers and
    // reach the client after close() resolved (seen in a full run: 4,864 bytes); a flood that went
    // on would bring far more before the socket closed.
    const afterClose = flood.received - receivedAtClose;
    assert.ok(afterClose <= IN_FLIGHT_BYTES, `the flood stopped with the world: ${afterClose} bytes came after close()`);
  });
});

import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { SmtpTalk } from './smtp-talk.js';

const HOST = 'mx.corp.test';
const GREYLIST_MS = 300;

describe('a well-behaved simulated MX host', () => {
  let world: MailWorld;

  before(async () => {
    world = await startMailWorld({
      hosts: [
        { name: HOST, starttls: true, greeting: 'mx.corp.test' },
        { name: 'mx.plain.test', pipelining: false, smtputf8: false },
        { name: 'mx.webmail.test', webmailAcceptAll: true },
        { name: 'mx.slowpoke.test', commandLatencyMs: 30 },
      ],
      domains: [
        {
          name: 'corp.test',
          mx: [{ host: HOST, preference: 10 }],
          mailboxes: {
            alice: 'accept',
            gone: 'disabled',
            stuffed: 'full',
            hoarder: 'full_permanent',
            later: 'greylist',
            probed: 'policy_block',
            flaky: 'temp_fail',
            'josé': 'accept',
          },
          greylistMs: GREYLIST_MS,
        },
        { name: 'everything.test', mx: [{ host: HOST, preference: 10 }], otherMailboxes: 'accept' },
        { name: 'plain.test', mx: [{ host: 'mx.plain.test', preference: 10 }], mailboxes: { bob: 'accept' } },
        { name: 'webmail.test', mx: [{ host: 'mx.webmail.test', preference: 10 }] },
        { name: 'slow.test', mx: [{ host: 'mx.slowpoke.test', preference: 10 }], mailboxes: { carol: 'accept' } },
      ],
    });
  });

  after(() => world.close());
  beforeEach(() => world.reset());

  async function session(host = HOST): Promise<SmtpTalk> {
    const talk = await SmtpTalk.open(world.hostIp(host), world.smtpPort);
    const banner = await talk.read();
    assert.equal(banner.code, 220);
    return talk;
  }

  async function rcpt(local: string, domain = 'corp.test', host = HOST): Promise<string> {
    const talk = await session(host);
    await talk.command('EHLO probe.presend.test');
    assert.equal((await talk.command('MAIL FROM:<probe@presend.test>')).code, 250);
    const reply = await talk.command(`RCPT TO:<${local}@${domain}>`);
    await talk.command('QUIT');
    talk.close();
    return reply.text;
  }

  test('the banner and EHLO name the host and offer PIPELINING, SMTPUTF8 and STARTTLS', async () => {
    const talk = await SmtpTalk.open(world.hostIp(HOST), world.smtpPort);
    assert.match((await talk.read()).text, /^220 mx\.corp\.test ESMTP/);
    const ehlo = await talk.command('EHLO probe.presend.test');
    assert.equal(ehlo.code, 250);
    assert.ok(ehlo.lines.length > 1, 'EHLO is a multi-line reply');
    for (const keyword of ['PIPELINING', 'SMTPUTF8', 'STARTTLS']) assert.ok(ehlo.lines.some((l) => l.slice(4) === keyword), keyword);
    talk.close();
  });

  test('a host can leave out PIPELINING and SMTPUTF8', async () => {
    const talk = await session('mx.plain.test');
    const ehlo = await talk.command('EHLO probe.presend.test');
    assert.ok(!ehlo.lines.some((l) => /PIPELINING|SMTPUTF8|STARTTLS/.test(l)));
    talk.close();
  });

  test('each mailbox behaviour gets its realistic RCPT reply', async () => {
    assert.match(await rcpt('alice'), /^250 /);
    assert.equal(await rcpt('nobody'), '550 5.1.1 <nobody@corp.test>: Recipient address rejected: User unknown in virtual mailbox table');
    assert.equal(await rcpt('gone'), '550 5.2.1 mailbox disabled');
    assert.equal(await rcpt('stuffed'), '452 4.2.2 Mailbox full');
    assert.equal(await rcpt('hoarder'), '552 5.2.2 mailbox over quota');
    assert.equal(await rcpt('probed'), '554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org');
    assert.equal(await rcpt('flaky'), '451 4.3.0 temporary failure');
  });

  test('a non-ASCII mailbox is answered in an SMTPUTF8 transaction (RFC 6531)', async () => {
    const talk = await session();
    await talk.command('EHLO probe.presend.test');
    assert.equal((await talk.command('MAIL FROM:<probe@presend.test> SMTPUTF8')).code, 250);
    assert.equal((await talk.command('RCPT TO:<josé@corp.test>')).code, 250);
    assert.equal((await talk.command('RCPT TO:<zoë@corp.test>')).code, 550);
    talk.close();
  });

  test('local parts are matched without regard to case', async () => {
    assert.match(await rcpt('Alice'), /^250 /);
  });

  test('a catch-all domain accepts any local part', async () => {
    assert.match(await rcpt('x7f3q9zz', 'everything.test'), /^250 /);
  });

  test('a webmail host that accepts all answers 250 even for mailboxes that do not exist', async () => {
    assert.match(await rcpt('surely-not-a-user', 'webmail.test', 'mx.webmail.test'), /^250 /);
  });

  test('a domain the host does not serve is refused as relaying', async () => {
    assert.match(await rcpt('alice', 'elsewhere.test'), /^554 5\.7\.1 .*Relay access denied/);
  });

  test('greylisting defers a sender/recipient pair until greylistMs has passed since its first try', async () => {
    const talk = await session();
    await talk.command('EHLO probe.presend.test');
    await talk.command('MAIL FROM:<probe@presend.test>');
    assert.equal((await talk.command('RCPT TO:<later@corp.test>')).text, '450 4.7.1 Greylisted, try again later');
    assert.equal((await talk.command('RCPT TO:<later@corp.test>')).text, '450 4.7.1 Greylisted, try again later');
    await sleep(GREYLIST_MS + 50); // kept: greylistMs passing on the host's clock is the behaviour under test
    assert.equal((await talk.command('RCPT TO:<later@corp.test>')).code, 250);
    // Another sender starts its own clock.
    await talk.command('RSET');
    await talk.command('MAIL FROM:<other@presend.test>');
    assert.equal((await talk.command('RCPT TO:<later@corp.test>')).code, 450);
    talk.close();
  });

  test('pipelined commands get their replies in order', async () => {
    const talk = await session();
    await talk.command('EHLO probe.presend.test');
    talk.write('MAIL FROM:<probe@presend.test>\r\nRCPT TO:<alice@corp.test>\r\nRCPT TO:<nobody@corp.test>\r\nRCPT TO:<stuffed@corp.test>\r\nRSET\r\n');
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await talk.read()).code);
    assert.deepEqual(codes, [250, 250, 550, 452, 250]);
    assert.equal((await talk.command('QUIT')).code, 221);
    talk.close();
  });

  test('DATA is refused: probes never send a message', async () => {
    const talk = await session();
    await talk.command('EHLO probe.presend.test');
    await talk.command('MAIL FROM:<probe@presend.test>');
    await talk.command('RCPT TO:<alice@corp.test>');
    assert.equal((await talk.command('DATA')).code, 554);
    talk.close();
  });

  test('HELO works as well as EHLO', async () => {
    const talk = await session();
    assert.equal((await talk.command('HELO probe.presend.test')).code, 250);
    assert.equal((await talk.command('MAIL FROM:<probe@presend.test>')).code, 250);
    assert.equal((await talk.command('RCPT TO:<alice@corp.test>')).code, 250);
    talk.close();
  });

  test('STARTTLS upgrades the session and RCPT answers the same inside TLS', async () => {
    const talk = await session();
    await talk.command('EHLO probe.presend.test');
    assert.equal((await talk.command('STARTTLS')).code, 220);
    await talk.startTls();
    const ehlo = await talk.command('EHLO probe.presend.test');
    assert.ok(!ehlo.lines.some((l) => l.includes('STARTTLS')), 'STARTTLS is not offered twice');
    await talk.command('MAIL FROM:<probe@presend.test>');
    assert.equal((await talk.command('RCPT TO:<nobody@corp.test>')).code, 550);
    assert.equal((await talk.command('QUIT')).code, 221);
    talk.close();
    const recorded = world.recorder.sessions(HOST).at(-1);
    assert.deepEqual(
      recorded?.commands.map((c) => [c.command.split(' ')[0], c.replyCode]),
      [
        ['EHLO', 250],
        ['STARTTLS', 220],
        ['EHLO', 250],
        ['MAIL', 250],
        ['RCPT', 550],
        ['QUIT', 221],
      ],
    );
  });

  test('with command latency every reply still arrives, banner and QUIT included', async () => {
    const talk = await session('mx.slowpoke.test');
    await talk.command('EHLO probe.presend.test');
    talk.write('MAIL FROM:<probe@presend.test>\r\nRCPT TO:<carol@slow.test>\r\nRCPT TO:<dave@slow.test>\r\n');
    assert.deepEqual([(await talk.read()).code, (await talk.read()).code, (await talk.read()).code], [250, 250, 550]);
    assert.equal((await talk.command('QUIT')).code, 221);
    await talk.closed;
  });
});

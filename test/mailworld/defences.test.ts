import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMailWorld, type HostDefences, type MailWorld } from '../../src/mailworld/index.js';
import { SmtpTalk, type Reply } from './smtp-talk.js';

/** One host per defence, small numbers and short delays so the test stays fast. */
const DEFENDED: Record<string, HostDefences> = {
  'mx.postfix.test': { errorLimits: { soft: 3, hard: 6, sleepMs: 150 } },
  'mx.junk.test': { junkCommandLimit: 2, errorLimits: { soft: 10, hard: 3, sleepMs: 0 } },
  'mx.stress.test': { stress: true, errorLimits: { soft: 10, hard: 20, sleepMs: 0 } },
  'mx.conncount.test': { connectionCountLimit: 1 },
  'mx.connrate.test': { connectionRateLimit: { max: 2, perMs: 60_000 } },
  'mx.rcptrate.test': { recipientRateLimit: { max: 3, perMs: 60_000 } },
  'mx.rcptlimit.test': { recipientLimit: 2 },
  'mx.exchange.test': { tarpit: { delayMs: 200 } },
  'mx.sendmail.test': { badRcptThrottle: { after: 2, sleepMs: 150 }, greetingThrottle: { after: 3, sleepMs: 150 } },
  'mx.exim-nonmail.test': { maxNonmail: 3 },
  'mx.exim-delay.test': { unknownRecipientDelayMs: 150 },
  'mx.exim-max.test': { recipientsMax: 2 },
  'mx.drop421.test': { dropMidGroup: { afterRcpts: 2, how: '421', sessions: 1 } },
  'mx.dropclose.test': { dropMidGroup: { afterRcpts: 2, how: 'close', sessions: 1 } },
  'mx.throttle.test': { throttle: { afterRcpts: 2, reply: '451 4.7.1 Too many recipients, try again later' } },
  'mx.prebanner.test': { unsolicited: 'before_banner' },
  'mx.extra.test': { unsolicited: 'in_pipelined_group' },
};

const names = Object.keys(DEFENDED);
const domainOf = (host: string): string => host.replace(/^mx\./, '');

describe('mail world: the defences of real servers, through real SMTP traffic', () => {
  let world: MailWorld;

  before(async () => {
    world = await startMailWorld({
      hosts: names.map((name) => ({ name, defences: DEFENDED[name] })),
      domains: names.map((host) => ({ name: domainOf(host), mx: [{ host, preference: 10 }], mailboxes: { alice: 'accept', bob: 'accept' } })),
    });
  });
  after(() => world.close());

  async function greeted(host: string): Promise<SmtpTalk> {
    const talk = await SmtpTalk.open(world.hostIp(host), world.smtpPort);
    assert.equal((await talk.read()).code, 220);
    assert.equal((await talk.command('EHLO probe.presend.test')).code, 250);
    return talk;
  }

  /** Writes `lines` in one go (pipelined) and reads `count` replies, each with the ms since the write. */
  async function pipelined(talk: SmtpTalk, lines: string[], count = lines.length): Promise<Array<Reply & { ms: number }>> {
    const started = Date.now();
    talk.write(lines.map((l) => `${l}\r\n`).join(''));
    const replies: Array<Reply & { ms: number }> = [];
    for (let i = 0; i < count; i++) replies.push({ ...(await talk.read(3000)), ms: Date.now() - started });
    return replies;
  }

  const unknowns = (host: string, n: number): string[] => Array.from({ length: n }, (_, i) => `RCPT TO:<nobody${i}@${domainOf(host)}>`);

  test('Postfix error limits: from the soft limit every reply sleeps, at the hard limit a 421 closes the session', async () => {
    const host = 'mx.postfix.test';
    const talk = await greeted(host);
    const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...unknowns(host, 7)]);
    assert.deepEqual(replies.map((r) => r.code), [250, 550, 550, 550, 550, 550, 550, 421]);
    assert.match(replies[7]?.text ?? '', /^421 4\.7\.0 mx\.postfix\.test Error: too many errors/);
    assert.ok((replies[3]?.ms ?? 0) < 100, 'the first three errors are free');
    assert.ok((replies[6]?.ms ?? 0) - (replies[3]?.ms ?? 0) >= 3 * 150 - 20, 'each reply after the soft limit waited the error sleep');
    await talk.closed;
    const hits = world.recorder.limitHits(host);
    assert.deepEqual([hits.error_sleep, hits.too_many_errors], [3, 1]);
  });

  test('Postfix junk command limit: RSET and NOOP beyond it count as errors', async () => {
    const talk = await greeted('mx.junk.test');
    const replies = await pipelined(talk, ['NOOP', 'NOOP', 'RSET', 'NOOP', 'NOOP', 'NOOP']);
    assert.deepEqual(replies.map((r) => r.code), [250, 250, 250, 250, 250, 421]);
    await talk.closed;
  });

  test('Postfix stress mode: the first error ends the session at the next command', async () => {
    const host = 'mx.stress.test';
    const talk = await greeted(host);
    const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...unknowns(host, 1), 'RCPT TO:<alice@stress.test>']);
    assert.deepEqual(replies.map((r) => r.code), [250, 550, 421]);
    await talk.closed;
  });

  test('Postfix connection count limit: a second session at once from the same client gets 421 too many connections', async () => {
    const host = 'mx.conncount.test';
    const first = await greeted(host);
    const second = await SmtpTalk.open(world.hostIp(host), world.smtpPort);
    const refused = await second.read();
    assert.equal(refused.code, 421);
    assert.match(refused.text, /Error: too many connections from 127\.0\.0\.1/);
    await second.closed;
    first.close();
    assert.equal(world.recorder.limitHits(host).too_many_connections, 1);
  });

  test('Postfix connection rate limit: the third connection within the time unit gets 421', async () => {
    const host = 'mx.connrate.test';
    for (let i = 0; i < 2; i++) (await greeted(host)).close();
    const third = await SmtpTalk.open(world.hostIp(host), world.smtpPort);
    assert.equal((await third.read()).code, 421);
    assert.equal(world.recorder.limitHits(host).connection_rate, 1);
  });

  test('Postfix recipient rate limit: RCPTs beyond the rate get 450 4.7.1 too many recipients', async () => {
    const talk = await greeted('mx.rcptrate.test');
    const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...['alice', 'bob', 'alice', 'bob'].map((l) => `RCPT TO:<${l}@rcptrate.test>`)]);
    assert.deepEqual(replies.map((r) => r.code), [250, 250, 250, 250, 450]);
    assert.match(replies[4]?.text ?? '', /^450 4\.7\.1 Error: too many recipients from/);
    talk.close();
  });

  test('Postfix recipient limit and Exim recipients_max: 452 4.5.3 past the limit, a new transaction starts afresh', async () => {
    for (const host of ['mx.rcptlimit.test', 'mx.exim-max.test']) {
      const talk = await greeted(host);
      const rcpts = ['alice', 'bob', 'alice'].map((l) => `RCPT TO:<${l}@${domainOf(host)}>`);
      const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...rcpts, 'RSET', 'MAIL FROM:<probe@presend.test>', rcpts[0] ?? '']);
      assert.deepEqual(replies.map((r) => r.code), [250, 250, 250, 452, 250, 250, 250], host);
      assert.match(replies[3]?.text ?? '', /^452 4\.5\.3/);
      talk.close();
    }
  });

  test('Exchange tarpit: each 550 5.1.1 is held back, and the replies behind it wait their turn', async () => {
    const host = 'mx.exchange.test';
    const talk = await greeted(host);
    const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', 'RCPT TO:<alice@exchange.test>', ...unknowns(host, 2), 'RCPT TO:<bob@exchange.test>']);
    assert.deepEqual(replies.map((r) => r.code), [250, 250, 550, 550, 250]);
    assert.ok((replies[1]?.ms ?? 0) < 100, 'an accepted recipient is answered at once');
    assert.ok((replies[3]?.ms ?? 0) >= 2 * 200 - 20, 'two held-back rejections');
    assert.ok((replies[4]?.ms ?? 0) >= (replies[3]?.ms ?? 0), 'in order');
    assert.equal(world.recorder.limitHits(host).tarpit, 2);
    talk.close();
  });

  test('Sendmail BadRcptThrottle: after N bad recipients in a session every further RCPT sleeps, in later transactions too', async () => {
    const host = 'mx.sendmail.test';
    const talk = await greeted(host);
    const first = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...unknowns(host, 2), 'RCPT TO:<alice@sendmail.test>', 'RCPT TO:<bob@sendmail.test>']);
    assert.ok((first[2]?.ms ?? 0) < 100, 'the first bad recipients are free');
    assert.ok((first[4]?.ms ?? 0) - (first[2]?.ms ?? 0) >= 2 * 150 - 20, 'each RCPT after them slept');
    const second = await pipelined(talk, ['RSET', 'MAIL FROM:<probe@presend.test>', 'RCPT TO:<alice@sendmail.test>']);
    assert.ok((second[2]?.ms ?? 0) >= 150 - 10, 'the count is per session');
    talk.close();
  });

  test('Sendmail MAXHELOCOMMANDS: the third greeting of a session waits, the fourth twice as long', async () => {
    const talk = await greeted('mx.sendmail.test');
    const replies = await pipelined(talk, ['EHLO probe.presend.test', 'EHLO probe.presend.test', 'EHLO probe.presend.test']);
    assert.ok((replies[0]?.ms ?? 0) < 100, 'the second greeting is free');
    assert.ok((replies[1]?.ms ?? 0) >= 150 - 10, 'the third waits');
    assert.ok((replies[2]?.ms ?? 0) - (replies[1]?.ms ?? 0) >= 300 - 20, 'the fourth waits twice as long');
    talk.close();
  });

  test('Exim smtp_accept_max_nonmail: non-mail commands past the limit get 421 and the session ends', async () => {
    const talk = await greeted('mx.exim-nonmail.test');
    const replies = await pipelined(talk, ['NOOP', 'NOOP', 'NOOP', 'NOOP']);
    assert.deepEqual(replies.map((r) => r.code), [250, 250, 250, 421]);
    assert.match(replies[3]?.text ?? '', /too many nonmail commands/);
    await talk.closed;
  });

  test('Exim: one RSET and one EHLO per message are free, so a prober that sends MAIL between them never reaches the limit', async () => {
    const talk = await greeted('mx.exim-nonmail.test');
    for (let i = 0; i < 6; i++) {
      const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', 'RCPT TO:<alice@exim-nonmail.test>', 'EHLO probe.presend.test']);
      assert.deepEqual(replies.map((r) => r.code), [250, 250, 250]);
    }
    talk.close();
  });

  test('Exim ACL delay: each rejection of an unknown recipient waits', async () => {
    const host = 'mx.exim-delay.test';
    const talk = await greeted(host);
    const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...unknowns(host, 1)]);
    assert.ok((replies[1]?.ms ?? 0) >= 150 - 10);
    talk.close();
  });

  test('any server: a 421 or a silent close in the middle of a pipelined group, in its first session only', async () => {
    for (const [host, last] of [
      ['mx.drop421.test', 421],
      ['mx.dropclose.test', null],
    ] as const) {
      const talk = await greeted(host);
      const rcpts = ['alice', 'bob', 'alice', 'bob'].map((l) => `RCPT TO:<${l}@${domainOf(host)}>`);
      if (last === 421) {
        const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...rcpts], 4);
        assert.deepEqual(replies.map((r) => r.code), [250, 250, 250, 421]);
      } else {
        const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...rcpts], 3);
        assert.deepEqual(replies.map((r) => r.code), [250, 250, 250]);
        await assert.rejects(talk.read(500), /closed/);
      }
      await talk.closed;
      const again = await greeted(host);
      assert.deepEqual((await pipelined(again, ['MAIL FROM:<probe@presend.test>', ...rcpts])).map((r) => r.code), [250, 250, 250, 250, 250]);
      again.close();
    }
  });

  test('any server: throttling with 451 4.7.1 "try again later" after a number of recipients', async () => {
    const talk = await greeted('mx.throttle.test');
    const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', ...['alice', 'bob', 'alice'].map((l) => `RCPT TO:<${l}@throttle.test>`)]);
    assert.deepEqual(replies.map((r) => r.code), [250, 250, 250, 451]);
    talk.close();
  });

  test('any server: unsolicited lines — a 250 before the greeting, an extra 250 inside a pipelined group only', async () => {
    const early = await SmtpTalk.open(world.hostIp('mx.prebanner.test'), world.smtpPort);
    assert.equal((await early.read()).code, 250);
    assert.equal((await early.read()).code, 220);
    early.close();

    const talk = await greeted('mx.extra.test');
    const replies = await pipelined(talk, ['MAIL FROM:<probe@presend.test>', 'RCPT TO:<nobody@extra.test>', 'RSET'], 4);
    assert.deepEqual(replies.map((r) => r.code), [250, 250, 550, 250], 'one reply more than commands');
    assert.equal((await talk.command('MAIL FROM:<probe@presend.test>')).code, 250);
    assert.equal((await talk.command('RCPT TO:<nobody@extra.test>')).code, 550, 'one command at a time: no extra line');
    talk.close();
  });
});

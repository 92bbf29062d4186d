import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { SmtpTalk } from './smtp-talk.js';
import { until } from '../until.js';

const OPEN = 'mx.open.test';
const LIMITED = 'mx.limited.test';

describe('the session recorder and connection limits', () => {
  let world: MailWorld;

  before(async () => {
    world = await startMailWorld({
      hosts: [{ name: OPEN }, { name: LIMITED, maxConnections: 2 }],
      domains: [
        { name: 'open.test', mx: [{ host: OPEN, preference: 10 }], mailboxes: { a: 'accept', b: 'accept' } },
        { name: 'limited.test', mx: [{ host: LIMITED, preference: 10 }], mailboxes: { a: 'accept' } },
      ],
    });
  });

  after(() => world.close());

  beforeEach(async () => {
    // Let the server see the end of the previous test's sockets before counting afresh.
    await until('the previous sessions ended', () => world.recorder.openSessions(OPEN) === 0 && world.recorder.openSessions(LIMITED) === 0);
    world.reset();
  });

  async function greeted(host: string): Promise<SmtpTalk> {
    const talk = await SmtpTalk.open(world.hostIp(host), world.smtpPort);
    assert.equal((await talk.read()).code, 220);
    return talk;
  }

  async function quit(talk: SmtpTalk): Promise<void> {
    assert.equal((await talk.command('QUIT')).code, 221);
    talk.close();
    await talk.closed;
  }

  test('sessions one after another are counted one by one, never concurrent', async () => {
    for (let i = 0; i < 3; i++) await quit(await greeted(OPEN));
    assert.equal(world.recorder.sessionCount(OPEN), 3);
    assert.equal(world.recorder.sessions(OPEN).length, 3);
    assert.equal(world.recorder.maxConcurrent(OPEN), 1);
  });

  test('sessions open at the same time raise the peak to their number', async () => {
    const talks = await Promise.all([greeted(OPEN), greeted(OPEN), greeted(OPEN)]);
    assert.equal(world.recorder.maxConcurrent(OPEN), 3);
    for (const talk of talks) await quit(talk);
    const again = await greeted(OPEN);
    await quit(again);
    assert.equal(world.recorder.maxConcurrent(OPEN), 3);
    assert.equal(world.recorder.sessionCount(OPEN), 4);
    assert.equal(world.recorder.maxConcurrent(LIMITED), 0);
  });

  test('every RCPT is counted, and each command is recorded with its reply code', async () => {
    const talk = await greeted(OPEN);
    await talk.command('EHLO probe.presend.test');
    await talk.command('MAIL FROM:<probe@presend.test>');
    await talk.command('RCPT TO:<a@open.test>');
    await talk.command('RCPT TO:<zz@open.test>');
    await talk.command('RSET');
    await talk.command('MAIL FROM:<probe@presend.test>');
    await talk.command('RCPT TO:<b@open.test>');
    await quit(talk);
    assert.equal(world.recorder.rcptCount(OPEN), 3);
    assert.equal(world.recorder.rcptCount(), 3);
    const [session] = world.recorder.sessions(OPEN);
    assert.ok(session);
    assert.equal(session.ip, world.hostIp(OPEN));
    assert.equal(session.bannerCode, 220);
    assert.ok(session.endedAt !== null && session.endedAt >= session.startedAt);
    assert.deepEqual(
      session.commands.map((c) => c.replyCode),
      [250, 250, 250, 550, 250, 250, 250, 221],
    );
    assert.equal(session.commands[2]?.command, 'RCPT TO:<a@open.test>');
  });

  test('a session beyond maxConnections is told 421 4.7.0 and closed', async () => {
    const first = await greeted(LIMITED);
    const second = await greeted(LIMITED);
    const third = await SmtpTalk.open(world.hostIp(LIMITED), world.smtpPort);
    const refused = await third.read();
    assert.equal(refused.code, 421);
    assert.match(refused.text, /^421 4\.7\.0 Too many connections/);
    await third.closed;
    assert.equal(world.recorder.maxConcurrent(LIMITED), 3, 'the refused session was seen, so a polite client would not open it');
    assert.deepEqual(
      world.recorder.sessions(LIMITED).map((s) => s.bannerCode),
      [220, 220, 421],
    );
    await quit(first);
    const fourth = await greeted(LIMITED);
    await quit(fourth);
    await quit(second);
  });

  test('reset forgets finished sessions and RCPT counts', async () => {
    await quit(await greeted(OPEN));
    world.reset();
    assert.equal(world.recorder.sessionCount(OPEN), 0);
    assert.equal(world.recorder.maxConcurrent(OPEN), 0);
    assert.equal(world.recorder.rcptCount(), 0);
  });
});

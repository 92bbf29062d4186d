import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { SmtpTalk } from '../mailworld/smtp-talk.js';
import { skipUnless } from './bed.js';
import { postfixList } from './lists.js';
import { openSmtpdUnavailable, startOpenSmtpd } from './opensmtpd-bed.js';
import { assertNothingTaken, useBed, verifyListAtBed } from './suite.js';
import { ProbeSession } from '../../src/core/smtp/session.js';
import { DEFAULT_REPLY_LIMITS } from '../../src/core/replies/parse.js';

/**
 * Against OpenSMTPD 6.8 with its stock limits (opensmtpd-bed.ts), which does not offer
 * PIPELINING and drops a client that pipelines anyway. Unknown users get "550 Invalid
 * recipient" (a recipient table) or "524 5.2.4 Mailing list expansion problem" (a virtual
 * table): both are no mailbox. Only one OpenSMTPD runs at a time (its spool and control socket
 * are compiled in), so the suites of this file start theirs one after the other.
 */
const skip = skipUnless('OpenSMTPD', openSmtpdUnavailable());

for (const setup of [
  { label: 'a recipient table (550 Invalid recipient)', virtual: false, latency: undefined, seed: 41, todo: false as const },
  { label: 'a virtual table (524 5.2.4)', virtual: true, latency: undefined, seed: 42, todo: false as const },
  { label: 'a recipient table, behind an 80 ms round trip', virtual: false, latency: { relayIp: '127.0.80.4', oneWayMs: 40 }, seed: 43, todo: false as const },
]) {
  describe(`real OpenSMTPD, ${setup.label}`, { skip }, () => {
    const list = postfixList({ perDomain: 150, unknownShare: 0.25, seed: setup.seed });
    const use = useBed(list, () => startOpenSmtpd({ ip: '127.0.80.2', domains: list.domains, recipients: [...list.existing], virtual: setup.virtual }), setup.latency);

    test('300 addresses over two domains, 25 % unknown: every address its verdict, no defence set off, nothing taken', { todo: setup.todo }, async () => {
      await verifyListAtBed(use, list);
      const bed = use.bed();
      assert.deepEqual(bed.limitLines(), []);
      const refused = bed.log().split('\n').filter((l) => /failed-command command="RCPT TO/.test(l)).length;
      assert.ok(refused >= 0.2 * list.addresses.length, `OpenSMTPD refused ${refused} recipients`);
    });
  });
}

describe('the OpenSMTPD bed itself', { skip }, () => {
  const list = postfixList({ perDomain: 5, unknownShare: 0.5, seed: 44 });
  const use = useBed(list, () => startOpenSmtpd({ ip: '127.0.80.3', domains: list.domains, recipients: [...list.existing] }));

  test('offers no PIPELINING, drops a client that pipelines anyway, and limitLines() shows it', async () => {
    const bed = use.bed();
    const talk = await SmtpTalk.open(bed.ip, bed.port);
    assert.equal((await talk.read()).code, 220);
    const ehlo = await talk.command('EHLO probe.test');
    assert.equal(ehlo.code, 250);
    assert.doesNotMatch(ehlo.text, /PIPELINING/);
    talk.write(`MAIL FROM:<probe@probe.test>\r\nRCPT TO:<${[...list.existing][0]}>\r\n`);
    const refused = await talk.read();
    assert.equal(refused.code, 500);
    assert.match(refused.text, /Pipelining not supported/);
    await talk.closed;
    await bed.settle();
    assert.equal(bed.limitLines().length, 1, bed.limitLines().join('\n'));
    assertNothingTaken(bed);
  });
});

describe('real OpenSMTPD, one lockstep session: groups go on in one message', { skip }, () => {
  const list = postfixList({ perDomain: 12, unknownShare: 0.5, seed: 45, domains: ['lockstep.test'] });
  const use = useBed(list, () => startOpenSmtpd({ ip: '127.0.80.5', domains: list.domains, recipients: [...list.existing] }));

  test('three groups of four in one MAIL: no RSET or MAIL between them, every RCPT answered in its place, the transcript shows one MAIL', async () => {
    const bed = use.bed();
    const opened = await ProbeSession.open(bed.hostname, [bed.ip], {
      heloName: 'probe.presend.test',
      mailFrom: 'probe@presend.test',
      port: bed.port,
      stepTimeoutMs: 5000,
      sessionMaxMs: 30_000,
      proxy: null,
      useStartTls: false,
      limits: DEFAULT_REPLY_LIMITS,
    });
    assert.ok(opened.ok, opened.ok ? '' : opened.failure.detail);
    const session = opened.session;
    assert.equal(session.pipelined, false, 'OpenSMTPD offers no PIPELINING');
    const groups = [list.addresses.slice(0, 4), list.addresses.slice(4, 8), list.addresses.slice(8, 12)];
    const codes: number[] = [];
    const sent: string[] = [];
    for (const [g, group] of groups.entries()) {
      if (g > 0) assert.equal(session.canGoOn(group.length, false, 100), true, 'the message is open');
      const result = await session.transaction(group, false, 'none', undefined, g > 0);
      assert.equal(result.verified, true);
      assert.equal(result.mails[0]?.code, 250);
      codes.push(...result.rcpt.map((r) => r?.code ?? 0));
      const lines = session.transcript.groupBuckets(group.length)[0] ?? [];
      sent.push(...lines.filter((line) => line.dir === 'C').map((line) => line.text.split(':')[0] ?? ''));
      if (g > 0) assert.ok(lines.some((line) => line.dir === '-' && /in the message this session opened before \(MAIL FROM:<probe@presend\.test> answered 250; \d+ recipients/.test(line.text)), 'the explanation says which message it went on in');
    }
    assert.equal(session.canGoOn(1, false, 12), false, 'a message at its recipient limit takes no more');
    assert.deepEqual(sent, ['MAIL FROM', 'RCPT TO', 'RCPT TO', 'RCPT TO'], 'the first group opened the message; each recipient sees its own RCPT');
    assert.deepEqual(
      codes,
      list.addresses.slice(0, 12).map((a) => (list.existing.has(a) ? 250 : 550)),
    );
    await session.quit();
    await bed.settle();
    assert.deepEqual(bed.limitLines(), []);
    assertNothingTaken(bed);
  });
});

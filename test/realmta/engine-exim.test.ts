import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnless } from './bed.js';
import { eximUnavailable, startExim } from './exim-bed.js';
import { postfixList, type RealMtaList } from './lists.js';
import { useBed, verifyListAtBed } from './suite.js';
import { ProbeSession, type SessionSettings } from '../../src/core/smtp/session.js';
import { DEFAULT_REPLY_LIMITS } from '../../src/core/replies/parse.js';

/**
 * How the engine reads an Exim that delays each unknown recipient from the 4th of a message
 * (exim-bed.ts): its greeting names Exim, so no message carries more than three possible
 * refusals — even at a domain whose every address is gone — and behind a far path the engine
 * uses more sessions at once, within Exim's 10 per host.
 */
const skip = skipUnless('Exim', eximUnavailable());

describe('real Exim: a domain whose every address is gone', { skip }, () => {
  const gone = postfixList({ perDomain: 60, unknownShare: 1, seed: 24, domains: ['gone.test'] });
  const list: RealMtaList = { ...gone, existing: new Set() };
  const use = useBed(list, () => startExim({ ip: '127.0.78.6', domains: list.domains, recipients: [] }));

  test('every address its verdict, and not one delayed RCPT in Exim\'s log: three refusals per message at most', async () => {
    await verifyListAtBed(use, list);
    assert.deepEqual(use.bed().limitLines(), []);
    const rejected = use.bed().log().split('\n').filter((l) => /rejected RCPT/.test(l)).length;
    assert.ok(rejected >= list.addresses.length, `Exim refused ${rejected} recipients`);
  });
});

describe('real Exim behind an 80 ms round trip: sessions sized to the path', { skip }, () => {
  const list = postfixList({ perDomain: 100, unknownShare: 0.25, seed: 25 });
  const use = useBed(list, () => startExim({ ip: '127.0.78.7', domains: list.domains, recipients: [...list.existing] }), { relayIp: '127.0.78.8', oneWayMs: 40 });

  test('more than two sessions at once (the far path calls for them), no more than Exim allows, and no limit set off', async () => {
    await verifyListAtBed(use, list);
    assert.deepEqual(use.bed().limitLines(), []);
    const most = use.relay()?.mostAtOnce() ?? 0;
    assert.ok(most > 2 && most <= 10, `${most} sessions at once`);
  });
});

describe('real Exim, one session: several messages in one write, and its QUIT', { skip }, () => {
  const list = postfixList({ perDomain: 20, unknownShare: 0.5, seed: 26, domains: ['multi.test'] });
  const use = useBed(list, () => startExim({ ip: '127.0.78.10', domains: list.domains, recipients: [...list.existing] }));
  const settings = (): SessionSettings => ({
    heloName: 'probe.presend.test',
    mailFrom: 'probe@presend.test',
    port: use.bed().port,
    stepTimeoutMs: 5000,
    sessionMaxMs: 30_000,
    proxy: null,
    useStartTls: false,
    limits: DEFAULT_REPLY_LIMITS,
  });
  const open = async (): Promise<ProbeSession> => {
    const opened = await ProbeSession.open(use.bed().hostname, [use.bed().ip], settings());
    assert.ok(opened.ok, opened.ok ? '' : opened.failure.detail);
    return opened.session;
  };
  const unknown = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `nobody-${tag}-${i}@multi.test`);
  const known = (): string => [...list.existing][0] ?? '';

  test('three messages of three refusals each in one pipelined write: every reply in its place, no RCPT delayed — nine in one message are', async () => {
    const session = await open();
    const recipients = [known(), ...unknown(2, 'a'), ...unknown(3, 'b'), ...unknown(3, 'c')];
    const result = await session.transaction(recipients, false, 'ehlo', [3, 3, 3]);
    assert.equal(result.verified, true);
    assert.deepEqual(result.mails.map((m) => m?.code), [250, 250, 250]);
    assert.deepEqual(result.transactionOf, [0, 0, 0, 1, 1, 1, 2, 2, 2]);
    assert.deepEqual(result.rcpt.map((r) => r?.code), [250, 550, 550, 550, 550, 550, 550, 550, 550]);
    await session.quit(true);
    await use.bed().settle();
    assert.deepEqual(use.bed().limitLines(), [], 'each message stayed under the ACL delay (from the 4th refusal of a message)');
    // The same nine refusals in one message: Exim's delay starts at the 4th (the check can fail).
    const one = await open();
    const single = await one.transaction(unknown(9, 'd'), false, 'ehlo');
    assert.equal(single.mails.length, 1);
    await one.quit(true);
    await use.bed().settle();
    assert.ok(use.bed().limitLines().some((l) => /delayed unknown recipient/.test(l)), 'nine refusals in one message were delayed');
  });

  test("a QUIT alone has its 221 held (Exim corks it until the client's end); a QUIT with our end has it at once", async () => {
    const timed = async (halfClose: boolean): Promise<{ ms: number; late: boolean }> => {
      const session = await open();
      const started = performance.now();
      assert.equal(await session.quit(halfClose), true, 'the 221 came');
      return { ms: performance.now() - started, late: session.quitAnsweredLate };
    };
    const alone = await timed(false);
    const ended = await timed(true);
    assert.equal(alone.late, true, `QUIT alone answered after ${alone.ms.toFixed(0)} ms`);
    assert.ok(ended.ms < alone.ms - 100, `with our end ${ended.ms.toFixed(0)} ms, alone ${alone.ms.toFixed(0)} ms`);
  });
});

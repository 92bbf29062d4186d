import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnless } from './bed.js';
import { postfixList, type RealMtaList } from './lists.js';
import { postfixUnavailable, startPostfix } from './postfix-bed.js';
import { assertNothingTaken, assertVerdicts, useBed, verifyAll, verifyListAtBed } from './suite.js';

/**
 * Against Debian's Postfix with its stock defences (postfix-bed.ts): the engine must give every
 * address its verdict without setting off a single limit Postfix logs, and nothing is ever
 * delivered. Runs in CI (.ci/run installs postfix); skipped, with the reason, where the package
 * or root is missing.
 */
const skip = skipUnless('Postfix', postfixUnavailable());

/** A Postfix for the suite (started before its tests, stopped after them) and the DNS that points at it. */
function usePostfix(list: RealMtaList, ip: string, smtpdOptions: string[] = [], latency?: { relayIp: string; oneWayMs: number }) {
  return useBed(list, () => startPostfix({ ip, domains: list.domains, recipients: [...list.existing], smtpdOptions }), latency);
}

describe('real Postfix, stock defences', { skip }, () => {
  const list = postfixList({ perDomain: 300, unknownShare: 0.3, seed: 5 });
  const { bed: bedOf, world: worldOf, port } = usePostfix(list, '127.0.77.2');

  test('600 addresses over two domains, 30 % unknown: every address its verdict, and not one "too many errors" or "too many connections" in the log', async () => {
    const bed = bedOf();
    const results = await verifyAll(worldOf(), port(), list.addresses);
    await bed.settle();
    assertVerdicts(list, results);
    assert.deepEqual(bed.limitLines(), []);
    const rejected = bed.log().split('\n').filter((l) => /: reject: RCPT from/.test(l)).length;
    assert.ok(rejected >= 0.25 * list.addresses.length, `Postfix rejected ${rejected} recipients`);
  });

  test('no mail is ever delivered: the queue stays empty and nothing was sent', () => {
    assertNothingTaken(bedOf());
    assert.doesNotMatch(bedOf().log(), /status=sent|: message-id=/);
  });
});

describe('real Postfix in stress mode (hard error limit 1): a 421 in the middle of a pipelined group', { skip }, () => {
  const list = postfixList({ perDomain: 40, unknownShare: 0.3, seed: 8 });
  // STRESS_README: `-o stress=yes` on the smtpd service forces the overload settings, among
  // them smtpd_hard_error_limit = 1: the command after a first rejection gets
  // "421 4.7.0 … Error: too many errors" and the session ends, pipelined RCPTs unanswered.
  const { bed: bedOf, world: worldOf, port } = usePostfix(list, '127.0.77.3', ['stress=yes']);

  test('loses nothing: the unanswered recipients are asked again and every address gets its verdict', async () => {
    const bed = bedOf();
    const results = await verifyAll(worldOf(), port(), list.addresses);
    // Postfix ends a session (and cleanup removes the file an accepted RCPT opened) a moment
    // after the client has gone: the queue is read once it has settled.
    await bed.settle();
    assertVerdicts(list, results);
    assert.match(bed.log(), /too many errors/, 'Postfix did cut sessions with a 421');
    assert.equal(bed.queuedFiles(), 0);
  });
});

describe('real Postfix, stock defences, behind an 80 ms round trip (the bed\'s latency relay)', { skip }, () => {
  const list = postfixList({ perDomain: 150, unknownShare: 0.3, seed: 9 });
  const use = usePostfix(list, '127.0.77.4', [], { relayIp: '127.0.77.5', oneWayMs: 40 });

  test('300 addresses: every address its verdict, not one limit line, nothing taken', async () => {
    await verifyListAtBed(use, list);
    assert.deepEqual(use.bed().limitLines(), []);
  });
});

describe('real Postfix, stock defences: a domain whose every address is gone', { skip }, () => {
  const list = postfixList({ perDomain: 100, unknownShare: 1, seed: 10, domains: ['gone.test'] });
  // Role accounts always exist in these lists; this domain has none.
  list.existing.clear();
  const use = usePostfix(list, '127.0.77.6');

  test('100 unknown addresses: every one UNDELIVERABLE_NO_MAILBOX, nothing taken', async () => {
    await verifyListAtBed(use, list);
  });

  test('no session reaches Postfix\'s soft error limit (10 errors, smtpd_soft_error_limit): from then on every reply would be held 1 s', () => {
    // smtpd's disconnect line counts commands as ok/total ("commands=3/12"): the difference is the session's errors.
    const errors = [...use.bed().log().matchAll(/disconnect from .* commands=(\d+)\/(\d+)/g)].map((m) => Number(m[2]) - Number(m[1]));
    assert.ok(errors.length > 0, 'Postfix logged the sessions');
    assert.deepEqual(errors.filter((e) => e >= 10), [], `errors per session: ${errors.join(', ')}`);
  });
});

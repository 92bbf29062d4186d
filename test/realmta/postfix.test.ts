import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnless } from './bed.js';
import { postfixList, type RealMtaList } from './lists.js';
import { postfixUnavailable, startPostfix } from './postfix-bed.js';
import { assertNothingTaken, assertVerdicts, useBed, verifyAll } from './suite.js';

/**
 * Against Debian's Postfix with its stock defences (postfix-bed.ts): the engine must give every
 * address its verdict without setting off a single limit Postfix logs, and nothing is ever
 * delivered. Runs in CI (.ci/run installs postfix); skipped, with the reason, where the package
 * or root is missing.
 */
const skip = skipUnless('Postfix', postfixUnavailable());

/** A Postfix for the suite (started before its tests, stopped after them) and the DNS that points at it. */
function usePostfix(list: RealMtaList, ip: string, smtpdOptions: string[] = []) {
  return useBed(list, () => startPostfix({ ip, domains: list.domains, recipients: [...list.existing], smtpdOptions }));
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

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Entry, afterCut, afterHostPause, afterRefusal, afterSilence, type HostResult, type PutBackRules } from '../../src/core/smtp/put-back.js';
import { parseReplyText } from '../../src/core/replies/parse.js';
import type { SessionFailure } from '../../src/core/smtp/session.js';

const RULES: PutBackRules = { now: 0, closing: false, maxRequeues: 2, hostThrottleBoundMs: 1000 };
const FAILURE: SessionFailure = { kind: 'temporary', step: 'rcpt', reply: null, detail: 'x' };
const THROTTLE = parseReplyText('450 4.7.1 Error: too many recipients from 203.0.113.7');

function entries(n: number): { list: Entry[]; results: HostResult[] } {
  const results: HostResult[] = [];
  const list = Array.from({ length: n }, (_, i) => new Entry({ recipient: `u${i}@x.test`, needsUtf8: false }, (r) => results.push(r)));
  return { list, results };
}

describe('what happens to a recipient the host did not answer about (put-back.ts)', () => {
  test('a pause of the host puts the recipient back with its attempts; past the bound it ends host_throttled, never a failure', () => {
    const { list, results } = entries(1);
    const entry = list[0] as Entry;
    entry.attempts = 1;
    assert.deepEqual(afterHostPause(list, RULES, THROTTLE, 'paused'), [entry]);
    assert.deepEqual(afterHostPause(list, { ...RULES, now: 900 }, THROTTLE, 'paused'), [entry], 'within the bound, counted from the first pause');
    assert.equal(entry.attempts, 1, 'a pause is no attempt');
    assert.deepEqual(afterHostPause(list, { ...RULES, now: 1001 }, THROTTLE, 'paused'), []);
    assert.deepEqual(results, [{ kind: 'final', outcome: { kind: 'host_throttled', reply: THROTTLE, detail: 'paused' }, attempts: 1 }]);
  });

  test('refusals of the host (a 452, replies out of step) are counted: past maxRequeues the recipient ends as a failure', () => {
    const { list, results } = entries(1);
    assert.equal(afterRefusal(list, RULES, FAILURE).length, 1);
    assert.equal(afterRefusal(list, RULES, FAILURE).length, 1);
    assert.equal(afterRefusal(list, RULES, FAILURE).length, 0);
    assert.deepEqual(results, [{ kind: 'final', outcome: { kind: 'failure', failure: FAILURE }, attempts: 0 }]);
  });

  test('cuts after part of a group was answered have a bound of their own before they count as refusals', () => {
    const { list, results } = entries(1);
    for (let i = 0; i < 2; i++) assert.equal(afterCut(list, RULES, FAILURE).length, 1, `cut ${i + 1}`);
    assert.equal((list[0] as Entry).requeues, 0);
    assert.equal(afterCut(list, RULES, FAILURE).length, 1, 'the third cut is the first refusal');
    assert.equal((list[0] as Entry).requeues, 1);
    assert.deepEqual(results, []);
  });

  test('silence not of the host\'s doing (a timeout) is an attempt: maxAttempts of them end the recipient', () => {
    const { list, results } = entries(1);
    assert.equal(afterSilence(list, 2, FAILURE).length, 1);
    assert.equal(afterSilence(list, 2, FAILURE).length, 0);
    assert.deepEqual(results, [{ kind: 'final', outcome: { kind: 'failure', failure: FAILURE }, attempts: 2 }]);
  });

  test('a closing queue settles whatever it is handed as aborted', () => {
    const { list, results } = entries(2);
    assert.deepEqual(afterHostPause(list, { ...RULES, closing: true }, null, ''), []);
    assert.deepEqual(results.map((r) => (r.kind === 'final' ? r.outcome.kind : r.kind)), ['aborted', 'aborted']);
  });
});

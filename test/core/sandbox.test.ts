import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createSandboxEngine, sandboxKey } from '../../src/core/sandbox.js';
import type { Clock } from '../../src/core/ports.js';
import type { PublicVerdict, PreSendDecision } from '../../src/core/types.js';

const clock: Clock = { now: () => new Date('2026-03-01T12:00:00.000Z') };

const ROWS: Array<[local: string, verdict: PublicVerdict, decision: PreSendDecision]> = [
  ['deliverable', 'DELIVERABLE', 'send'],
  ['undeliverable', 'UNDELIVERABLE_NO_MAILBOX', 'suppress'],
  ['catchall', 'CATCH_ALL', 'send_with_caution'],
  ['full', 'MAILBOX_FULL', 'recheck_later'],
  ['disposable', 'DISPOSABLE', 'suppress'],
  ['role', 'ROLE', 'send_with_caution'],
  ['greylisted', 'GREYLISTED', 'recheck_later'],
  ['transient', 'TRANSIENT', 'recheck_later'],
  ['unknown', 'UNKNOWN', 'do_not_decide'],
  ['spamtrap', 'SPAMTRAP', 'suppress'],
  ['anything.else', 'DELIVERABLE', 'send'],
];

describe('sandbox engine (docs/design.md §3)', () => {
  const engine = createSandboxEngine(clock);
  for (const [local, verdict, decision] of ROWS) {
    test(`${local}@example.com is ${verdict} with decision ${decision}, from the sandbox`, async () => {
      const result = await engine.verify(`${local}@example.com`);
      assert.equal(result.envelope.verdict, verdict);
      assert.equal(result.envelope.decision, decision);
      assert.equal(result.envelope.evidence_class, 'sandbox');
      assert.ok(result.envelope.reasons.includes('sandbox'));
      assert.equal(result.verifiedAt, '2026-03-01T12:00:00.000Z');
      const actionable = result.envelope.outcome === 'actionable_verdict';
      assert.equal(result.envelope.billing.credits, actionable ? 1 : 0);
    });
  }

  test('a +tag is ignored: undeliverable+42@ behaves as undeliverable@', async () => {
    assert.equal((await engine.verify('undeliverable+42@example.com')).envelope.verdict, 'UNDELIVERABLE_NO_MAILBOX');
    assert.equal(sandboxKey('Greylisted+x'), 'greylisted');
  });

  test('greylisted in the sandbox schedules a recheck with affinity', async () => {
    const result = await engine.verify('greylisted@example.com');
    assert.equal(result.envelope.status, 'recheck_scheduled');
    assert.equal(result.envelope.retry?.affinity_required, true);
  });

  test('the syntax check still runs first', async () => {
    const result = await engine.verify('deliverable@@example.com');
    assert.equal(result.envelope.status, 'rejected');
    assert.equal(result.envelope.verdict, null);
  });

  test('slow@ takes the configured delay, then answers', async () => {
    const quick = createSandboxEngine(clock, { slowDelayMs: 50 });
    const result = await quick.verify('slow@example.com');
    assert.equal(result.envelope.verdict, 'DELIVERABLE');
  });

  test('slow@ ends early when the caller aborts, as a non-verdict', async () => {
    const slow = createSandboxEngine(clock);
    const controller = new AbortController();
    const pending = slow.verify('slow@example.com', { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const result = await pending;
    assert.equal(result.envelope.verdict, 'TRANSIENT');
    assert.ok(result.envelope.reasons.includes('aborted'));
  });

  test('close() releases every slow@ still waiting', async () => {
    const slow = createSandboxEngine(clock);
    const pending = slow.verify('slow+1@example.com');
    await slow.close();
    assert.equal((await pending).envelope.verdict, 'TRANSIENT');
  });

  test('verifyMany reports every address', async () => {
    const seen: string[] = [];
    await engine.verifyMany(['role@a.example', 'full@b.example', 'x@c.example'], (r) => {
      seen.push(r.envelope.verdict ?? 'null');
    });
    assert.deepEqual(seen.sort(), ['DELIVERABLE', 'MAILBOX_FULL', 'ROLE']);
  });
});

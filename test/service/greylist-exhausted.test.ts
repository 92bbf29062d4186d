/**
 * The end of a greylisted address's rechecks in a batch (src/service/checks/envelopes.ts greylistExhausted):
 * it becomes a TRANSIENT non-verdict so the batch can finish, but a `suppress` the account's
 * own feedback decided (a complaint, docs/feedback.md) is not undone by the server's greylisting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandboxEngine } from '../../src/core/index.js';
import { applyFeedback, NO_FEEDBACK } from '../../src/core/feedback-verdict.js';
import { greylistExhausted } from '../../src/service/checks/envelopes.js';
import { toStoredResult } from '../../src/store/stored-result.js';

const sandbox = createSandboxEngine();
const now = new Date('2026-11-28T00:00:00Z');
const policy = { now, windowDays: 180 };

test('a greylisted address still greylisted after its last recheck ends TRANSIENT, recheck later, released', async () => {
  const greylisted = await sandbox.verify('greylisted@example.com');
  assert.equal(greylisted.envelope.verdict, 'GREYLISTED');
  const ended = greylistExhausted(toStoredResult(greylisted), now, 60_000);
  assert.equal(ended.envelope.verdict, 'TRANSIENT');
  assert.equal(ended.envelope.status, 'completed');
  assert.equal(ended.envelope.decision, 'recheck_later');
  assert.equal(ended.envelope.retry?.affinity_required, false);
});

test('a complained-about address still greylisted after its last recheck stays suppress, with its reason', async () => {
  const complained = { ...NO_FEEDBACK, complaints: { at: '2026-11-01T00:00:00.000Z', source: 'csv', count: 1 } };
  const greylisted = applyFeedback(await sandbox.verify('greylisted@example.com'), complained, policy);
  assert.equal(greylisted.envelope.decision, 'suppress');
  assert.ok(greylisted.envelope.reasons.includes('complained'));
  const ended = greylistExhausted(toStoredResult(greylisted), now, 60_000);
  assert.equal(ended.envelope.verdict, 'TRANSIENT');
  assert.equal(ended.envelope.decision, 'suppress');
  assert.ok(ended.envelope.reasons.includes('complained'));
});

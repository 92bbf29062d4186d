/**
 * The engine's feedback rules (src/core/feedback-verdict.ts), pure: the bounce window's edges on an
 * injected clock, a delivery resolving a catch-all, a complaint's suppression, and the summary
 * rule that folds events in any order (src/feedback/events.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerFromFeedback, applyFeedback, feedbackHistory, NO_FEEDBACK } from '../../src/core/feedback-verdict.js';
import { createSandboxEngine } from '../../src/core/index.js';
import type { AddressFeedback } from '../../src/core/types.js';
import { applyEvent } from '../../src/feedback/events.js';
import type { FeedbackEvent } from '../../src/feedback/events.js';

const DAY = 86_400_000;
const NOW = new Date('2026-06-01T12:00:00.000Z');
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();
const bounced = (at: string): AddressFeedback => ({ ...NO_FEEDBACK, lastHardBounce: { at, source: 'dsn', code: '5.1.1' } });
const policy = { now: NOW, windowDays: 180 };

test('a hard bounce exactly 180 days old still answers UNDELIVERABLE_BOUNCED; one a millisecond older does not', () => {
  const edge = answerFromFeedback('a@example.com', bounced(ago(180 * DAY)), policy);
  assert.equal(edge?.envelope.verdict, 'UNDELIVERABLE_BOUNCED');
  assert.equal(edge?.envelope.decision, 'suppress');
  assert.equal(edge?.envelope.evidence_class, 'bounce_history');
  assert.deepEqual(edge?.envelope.reasons, ['hard_bounced']);
  assert.equal(edge?.envelope.outcome, 'actionable_verdict');
  assert.equal(edge?.attempts, 0);
  assert.equal(answerFromFeedback('a@example.com', bounced(ago(180 * DAY + 1)), policy), null);
});

test("the window is the account's: 30 days makes a 31-day-old bounce stale", () => {
  assert.notEqual(answerFromFeedback('a@example.com', bounced(ago(29 * DAY)), { now: NOW, windowDays: 30 }), null);
  assert.equal(answerFromFeedback('a@example.com', bounced(ago(31 * DAY)), { now: NOW, windowDays: 30 }), null);
});

test('a delivery after the hard bounce lifts it (the mailbox came back); one before it does not', () => {
  const after: AddressFeedback = { ...bounced(ago(10 * DAY)), lastDelivery: { at: ago(2 * DAY), source: 'ses' } };
  assert.equal(answerFromFeedback('a@example.com', after, policy), null);
  const before: AddressFeedback = { ...bounced(ago(2 * DAY)), lastDelivery: { at: ago(10 * DAY), source: 'ses' } };
  assert.equal(answerFromFeedback('a@example.com', before, policy)?.envelope.verdict, 'UNDELIVERABLE_BOUNCED');
});

test('at a catch-all domain a delivery in the window makes DELIVERABLE (delivery_history); an old one leaves CATCH_ALL', async () => {
  const engine = createSandboxEngine();
  const probed = await engine.verify('catchall@example.com');
  assert.equal(probed.envelope.verdict, 'CATCH_ALL');
  const recent = applyFeedback(probed, { ...NO_FEEDBACK, lastDelivery: { at: ago(5 * DAY), source: 'sendgrid' } }, policy);
  assert.equal(recent.envelope.verdict, 'DELIVERABLE');
  assert.equal(recent.envelope.decision, 'send');
  assert.equal(recent.envelope.evidence_class, 'delivery_history');
  assert.equal(recent.envelope.reasons[0], 'delivered_recently');
  assert.ok(recent.envelope.reasons.includes('catch_all_domain'), 'the probe’s finding stays among the reasons');
  assert.equal(recent.score, 90);
  const stale = applyFeedback(probed, { ...NO_FEEDBACK, lastDelivery: { at: ago(181 * DAY), source: 'sendgrid' } }, policy);
  assert.equal(stale.envelope.verdict, 'CATCH_ALL');
  // A delivery does not change a verdict that is not CATCH_ALL.
  const nobody = await engine.verify('undeliverable@example.com');
  assert.equal(applyFeedback(nobody, { ...NO_FEEDBACK, lastDelivery: { at: ago(1 * DAY), source: 'ses' } }, policy).envelope.verdict, 'UNDELIVERABLE_NO_MAILBOX');
});

test('a complaint makes the decision suppress with reason complained, whatever the verdict', async () => {
  const engine = createSandboxEngine();
  const ok = await engine.verify('deliverable@example.com');
  const complained = applyFeedback(ok, { ...NO_FEEDBACK, complaints: { at: ago(400 * DAY), source: 'postmark', count: 1 } }, policy);
  assert.equal(complained.envelope.verdict, 'DELIVERABLE');
  assert.equal(complained.envelope.decision, 'suppress');
  assert.deepEqual(complained.envelope.reasons, ['complained', ...ok.envelope.reasons]);
  assert.equal(applyFeedback(complained, { ...NO_FEEDBACK, complaints: { at: ago(DAY), source: 'postmark', count: 2 } }, policy).envelope.reasons.filter((r) => r === 'complained').length, 1);
});

test('history is null without feedback, and carries every kind seen with checks 0 otherwise', () => {
  assert.equal(feedbackHistory(null), null);
  assert.equal(feedbackHistory(NO_FEEDBACK), null);
  const f: AddressFeedback = { ...bounced(ago(DAY)), softBounces: { at: ago(3 * DAY), source: 'csv', count: 2 } };
  assert.deepEqual(feedbackHistory(f), { checks: 0, firstCheckedAt: null, lastCheckedAt: null, lastVerdict: null, ...f });
});

test('events fold in any order: the latest wins each "last", soft bounces and complaints are counted', () => {
  const ev = (kind: FeedbackEvent['kind'], at: string, code: string | null = null): FeedbackEvent => ({ email: 'a@example.com', kind, at, code, eventId: `${kind}${at}` });
  const events = [ev('hard_bounce', ago(5 * DAY), '5.1.1'), ev('hard_bounce', ago(9 * DAY), '5.0.0'), ev('soft_bounce', ago(1 * DAY)), ev('soft_bounce', ago(7 * DAY)), ev('complaint', ago(2 * DAY))];
  const forward = events.reduce((f, e) => applyEvent(f, e, 'csv'), NO_FEEDBACK);
  const backward = [...events].reverse().reduce((f, e) => applyEvent(f, e, 'csv'), NO_FEEDBACK);
  assert.deepEqual(forward, backward);
  assert.deepEqual(forward.lastHardBounce, { at: ago(5 * DAY), source: 'csv', code: '5.1.1' });
  assert.deepEqual(forward.softBounces, { at: ago(1 * DAY), source: 'csv', count: 2 });
  assert.deepEqual(forward.complaints, { at: ago(2 * DAY), source: 'csv', count: 1 });
  assert.equal(forward.lastDelivery, null);
});

/**
 * Feedback events are purged by the retention purge, on every backend, on an injected clock: an
 * event that happened more than the retention ago (PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS) is
 * deleted, one at the edge too, a younger one stays; the address summaries the checks read stay
 * whole, so the verdict (UNDELIVERABLE_BOUNCED inside the account's window) and `history` do not
 * change. An old event offered again — a file imported again after the purge, a provider's old
 * delivery — is reported and not taken, so its soft bounce or complaint is never counted twice.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend, openStore } from '../backends.js';
import type { Backend } from '../../src/store/backend.js';
import type { FeedbackEvent } from '../../src/feedback/events.js';
import type { FeedbackPiece } from '../../src/service/feedback/feedback-import.js';
import { importFeedback } from '../../src/service/feedback/feedback-import.js';
import { readFeedback } from '../../src/service/feedback/check-feedback.js';
import { countRows } from '../backends.js';

const DAY = 86_400_000;
const NOW = new Date('2027-06-01T12:00:00.000Z');
const daysBefore = (days: number): string => new Date(NOW.getTime() - days * DAY).toISOString();
const RETENTION = 30;

describeOnEveryBackend('feedback events are purged after their retention; the summaries stay', (name) => {
  let store: { backend: Backend; url: string; close(): Promise<void> };
  before(async () => {
    store = await openStore(name);
  });
  after(async () => store.close());

  const pieces = async function* (events: FeedbackEvent[]): AsyncGenerator<FeedbackPiece> {
    for (const [i, e] of events.entries()) yield { where: `line ${i + 2}`, events: [e] };
  };

  test('the purge deletes the events older than the retention (the edge included), keeps the summaries, and an old event given again is not counted twice', async () => {
    const { backend, url } = store;
    const account = await backend.accounts.createAccount({ name: 'retained', credits: 0, now: NOW });
    assert.ok(account);
    const events: FeedbackEvent[] = [
      { email: 'gone@example.com', kind: 'hard_bounce', at: daysBefore(90), code: '5.1.1', eventId: 'old-hard' },
      { email: 'flaky@example.com', kind: 'soft_bounce', at: daysBefore(60), code: '4.2.2', eventId: 'old-soft' },
      { email: 'flaky@example.com', kind: 'soft_bounce', at: daysBefore(RETENTION), code: '4.2.2', eventId: 'edge-soft' },
      { email: 'flaky@example.com', kind: 'soft_bounce', at: daysBefore(RETENTION - 1), code: '4.2.2', eventId: 'young-soft' },
      { email: 'angry@example.com', kind: 'complaint', at: daysBefore(45), code: null, eventId: 'old-complaint' },
    ];
    // Taken while they were young enough (the retention counted from each event's own time).
    const taken = await importFeedback({ feedback: backend.feedback, accountId: account.id, source: 'csv', name: 'first.csv', pieces: pieces(events), now: () => NOW, eventsRetentionDays: 365 });
    assert.deepEqual([taken.import.events, taken.import.rejected], [5, 0]);
    const before = await Promise.all(['gone@example.com', 'flaky@example.com', 'angry@example.com'].map((e) => backend.feedback.address(account.id, e)));

    const purged = await backend.retention.purgeExpired(NOW, 30, { feedbackEventsRetentionDays: RETENTION, chunk: 2 });
    assert.equal(purged.feedbackEvents, 4, 'the 90-, 60-, 45- and 30-day-old events');
    assert.equal(await countRows(url, 'SELECT COUNT(*) AS n FROM feedback_events WHERE account_id = ?', [account.id]), 1);
    for (const [i, email] of ['gone@example.com', 'flaky@example.com', 'angry@example.com'].entries()) {
      const now = await backend.feedback.address(account.id, email);
      assert.deepEqual(now.history, before[i]?.history, `${email}: the summary is kept`);
    }
    assert.deepEqual((await backend.feedback.address(account.id, 'flaky@example.com')).events.map((e) => e.at), [daysBefore(RETENTION - 1)], 'only the young event is listed');
    // The verdicts read the summaries: a 90-day-old hard bounce is inside the default 180-day window still.
    const view = await readFeedback(backend.feedback, [{ accountId: account.id, email: 'gone@example.com' }], NOW);
    assert.equal(view.answer({ accountId: account.id, email: 'gone@example.com' })?.envelope.verdict, 'UNDELIVERABLE_BOUNCED');

    // The same file again, after the purge: the purged events are refused, not counted a second time.
    const again = await importFeedback({ feedback: backend.feedback, accountId: account.id, source: 'csv', name: 'first.csv', pieces: pieces(events), now: () => NOW, eventsRetentionDays: RETENTION });
    assert.deepEqual([again.import.events, again.import.duplicates, again.import.rejected], [0, 1, 4]);
    assert.match(again.problems[0]?.problem ?? '', /more than 30 days ago, longer than feedback events are kept/);
    assert.equal((await backend.feedback.address(account.id, 'flaky@example.com')).history?.softBounces?.count, 3);
    assert.equal((await backend.feedback.address(account.id, 'angry@example.com')).history?.complaints?.count, 1);
  });
});

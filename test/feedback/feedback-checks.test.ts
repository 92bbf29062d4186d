/**
 * Feedback end to end through the API, on every backend (test/api/backends.ts): a hard bounce
 * answers UNDELIVERABLE_BOUNCED without a probe and is billed as the verdict it is; the envelope's
 * `history` carries the feedback on single checks and batches (null without any); a batch over a
 * catch-all domain answers differently for a delivery, a bounce and nothing; a complaint
 * suppresses; another account's feedback changes nothing; forgetting an address removes it all.
 * The API engines are the sandbox in both slots (test/api/engines.ts): `crash@` makes the engine
 * throw, so a check of it that succeeds ran no probe.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { newIdem, startHarness, waitFinal, allResultItems } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import type { FeedbackEvent } from '../../src/feedback/events.js';

const DAY = 86_400_000;
const daysAgo = (n: number): string => new Date(Date.now() - n * DAY).toISOString();
let n = 0;
const event = (email: string, kind: FeedbackEvent['kind'], at: string, code: string | null = null): FeedbackEvent => ({ email, kind, at, code, eventId: `t-${++n}` });

describeOnEveryBackend('feedback shapes the checks of its account', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend });
  });
  after(async () => h.close());

  const record = (accountId: string, source: string, ...events: FeedbackEvent[]) => h.backend.feedback.record({ accountId, source, events, now: new Date() });

  test('a hard bounce in the window answers UNDELIVERABLE_BOUNCED without a probe, debits 1 credit, and fills history', async () => {
    const a = await h.newAccount(5);
    await record(a.accountId, 'dsn', event('crash.gone@example.com', 'hard_bounce', daysAgo(3), '5.1.1'));
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'crash.gone@example.com' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const p = r.body.presend;
    assert.equal(p.verdict, 'UNDELIVERABLE_BOUNCED');
    assert.equal(p.decision, 'suppress');
    assert.equal(p.evidence_class, 'bounce_history');
    assert.deepEqual(p.reasons, ['hard_bounced']);
    assert.deepEqual(p.billing, { disposition: 'debited', credits: 1 });
    assert.equal(r.body.engine.attempts, 0);
    assert.deepEqual(p.history, {
      checks: 0,
      firstCheckedAt: null,
      lastCheckedAt: null,
      lastVerdict: null,
      lastHardBounce: { at: p.history.lastHardBounce.at, source: 'dsn', code: '5.1.1' },
      softBounces: null,
      lastDelivery: null,
      complaints: null,
    });
    const balance = await h.backend.ledger.getBalance(a.accountId);
    assert.equal(balance.available, 4);
    const again = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'crash.gone@example.com' } });
    assert.equal(again.body.presend.history.checks, 1);
    assert.equal(again.body.presend.history.lastVerdict, 'UNDELIVERABLE_BOUNCED');
    assert.equal(again.body.presend.history.lastHardBounce.source, 'dsn');
  });

  test('a hard bounce older than the window is probed as usual; a narrower window set for the account moves the edge', async () => {
    const a = await h.newAccount(5);
    await record(a.accountId, 'csv', event('deliverable.old@example.com', 'hard_bounce', daysAgo(40)));
    const first = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable.old@example.com' } });
    assert.equal(first.body.presend.verdict, 'UNDELIVERABLE_BOUNCED');
    assert.equal(await h.backend.feedback.setWindow(a.accountId, 30), true);
    const later = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable.old@example.com' } });
    assert.equal(later.body.presend.verdict, 'DELIVERABLE');
    assert.equal(later.body.presend.history.lastHardBounce.source, 'csv', 'a stale bounce stays in the history');
  });

  test("another account's feedback changes nothing: its verdict is probed and its history is null", async () => {
    const a = await h.newAccount(5);
    const b = await h.newAccount(5);
    await record(a.accountId, 'ses', event('deliverable.shared@example.com', 'hard_bounce', daysAgo(1)), event('deliverable.shared@example.com', 'complaint', daysAgo(1)));
    const rb = await h.call('POST', '/v1/verify', { key: b.live, idem: newIdem(), body: { email: 'deliverable.shared@example.com' } });
    assert.equal(rb.body.presend.verdict, 'DELIVERABLE');
    assert.equal(rb.body.presend.decision, 'send');
    assert.equal(rb.body.presend.history, null);
    const ra = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable.shared@example.com' } });
    assert.equal(ra.body.presend.verdict, 'UNDELIVERABLE_BOUNCED');
    assert.deepEqual(ra.body.presend.reasons, ['complained', 'hard_bounced']);
  });

  test('a complaint suppresses a deliverable address, with reason complained', async () => {
    const a = await h.newAccount(5);
    await record(a.accountId, 'postmark', event('deliverable.annoyed@example.com', 'complaint', daysAgo(2)));
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable.annoyed@example.com' } });
    assert.equal(r.body.presend.verdict, 'DELIVERABLE');
    assert.equal(r.body.presend.decision, 'suppress');
    assert.equal(r.body.presend.reasons[0], 'complained');
    assert.deepEqual(r.body.presend.history.complaints, { at: r.body.presend.history.complaints.at, source: 'postmark', count: 1 });
  });

  test('a batch over a catch-all domain: DELIVERABLE with a delivery, UNDELIVERABLE_BOUNCED with a bounce, CATCH_ALL with neither', async () => {
    const a = await h.newAccount(10);
    await record(a.accountId, 'sendgrid', event('catchall+delivered@example.com', 'delivery', daysAgo(4)));
    await record(a.accountId, 'mailgun', event('catchall+bounced@example.com', 'hard_bounce', daysAgo(4), '5.1.1'));
    const emails = ['catchall+delivered@example.com', 'catchall+bounced@example.com', 'catchall+unknown@example.com', 'crash+bounced@example.com'];
    await record(a.accountId, 'mailgun', event('crash+bounced@example.com', 'hard_bounce', daysAgo(1), '5.1.1'));
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const final = await waitFinal(h, a.live, r.body.request.id);
    assert.equal(final.request.state, 'completed');
    const items = await allResultItems<{ email: string; presend: any }>(h, a.live, r.body.request.id); // eslint-disable-line @typescript-eslint/no-explicit-any
    const by = new Map(items.map((i) => [i.email, i.presend]));
    assert.equal(by.get('catchall+delivered@example.com').verdict, 'DELIVERABLE');
    assert.equal(by.get('catchall+delivered@example.com').evidence_class, 'delivery_history');
    assert.equal(by.get('catchall+delivered@example.com').history.lastDelivery.source, 'sendgrid');
    assert.equal(by.get('catchall+bounced@example.com').verdict, 'UNDELIVERABLE_BOUNCED');
    assert.equal(by.get('catchall+bounced@example.com').evidence_class, 'bounce_history');
    assert.equal(by.get('catchall+unknown@example.com').verdict, 'CATCH_ALL');
    assert.equal(by.get('catchall+unknown@example.com').history, null);
    // The engine throws on crash@: answered from the bounce, it was never probed.
    assert.equal(by.get('crash+bounced@example.com').verdict, 'UNDELIVERABLE_BOUNCED');
    assert.equal(final.counters.creditsDebited, 4);
    assert.equal(final.counters.send, 1);
    assert.equal(final.counters.suppress, 2);
    assert.equal(final.counters.sendWithCaution, 1);
  });

  test('forgetting an address removes its checks history and feedback: the next check has history null', async () => {
    const a = await h.newAccount(5);
    await record(a.accountId, 'csv', event('deliverable.forget@example.com', 'soft_bounce', daysAgo(1), '4.2.2'));
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable.forget@example.com' } });
    assert.equal(r.body.presend.history.softBounces.count, 1);
    assert.equal(await h.backend.feedback.forget(a.accountId, 'deliverable.forget@example.com'), true);
    assert.deepEqual(await h.backend.feedback.address(a.accountId, 'deliverable.forget@example.com'), { history: null, events: [] });
    const after = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable.forget@example.com' } });
    assert.equal(after.body.presend.history, null);
    assert.equal(await h.backend.feedback.forget(a.accountId, 'nobody.here@example.com'), false);
  });

  test('an event recorded twice (same source and id) counts once', async () => {
    const a = await h.newAccount(1);
    const e = event('deliverable.twice@example.com', 'soft_bounce', daysAgo(1));
    assert.deepEqual(await record(a.accountId, 'ses', e), { recorded: 1, duplicates: 0 });
    assert.deepEqual(await record(a.accountId, 'ses', e, { ...e, eventId: 'other' }), { recorded: 1, duplicates: 1 });
    const record2 = await h.backend.feedback.address(a.accountId, 'deliverable.twice@example.com');
    assert.equal(record2.history?.softBounces?.count, 2);
    const [source] = await h.backend.feedback.sources(a.accountId);
    assert.equal(source?.events, 2);
    assert.equal(source?.duplicates, 1);
  });
});

describe("the bounce window's edges, on the server's injected clock", () => {
  let h: Harness;
  let frozen: Date | null = null;
  before(async () => {
    h = await startHarness({ server: { now: () => frozen ?? new Date() } });
  });
  after(async () => h.close());

  test('a bounce answers until exactly 180 days after it, and is probed from a millisecond later', async () => {
    const a = await h.newAccount(5);
    const bouncedAt = new Date(Date.now() - 1000);
    await h.backend.feedback.record({ accountId: a.accountId, source: 'csv', events: [event('deliverable.edge@example.com', 'hard_bounce', bouncedAt.toISOString())], now: new Date() });
    const verdictAt = async (ms: number) => {
      frozen = new Date(bouncedAt.getTime() + ms);
      try {
        return (await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable.edge@example.com' } })).body.presend.verdict;
      } finally {
        frozen = null;
      }
    };
    assert.equal(await verdictAt(180 * DAY), 'UNDELIVERABLE_BOUNCED', 'the edge is inclusive');
    assert.equal(await verdictAt(180 * DAY + 1), 'DELIVERABLE');
  });
});

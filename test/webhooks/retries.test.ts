/**
 * The retry schedule with an injected clock: a failed attempt is tried again when the schedule
 * says (Standard Webhooks' ten attempts over about three days, jitter pinned), not before; a
 * Retry-After longer than the wait is honoured; a redirect is a failed attempt that is not
 * followed; after the last attempt the delivery ends failed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { addEndpoint } from '../../src/service/webhooks/endpoints.js';
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from '../../src/service/webhooks/retry-schedule.js';
import { WebhookSender } from '../../src/service/webhooks/webhook-sender.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

let backend: Backend;
let receiver: Receiver;
before(async () => {
  backend = await openBackend('sqlite::memory:', { config: defaultConfig() });
  receiver = await startReceiver();
});
after(async () => {
  await backend.close();
  await receiver.close();
});

/** A clock the test moves, a sender that reads it, and an endpoint of a new account at `path`. */
async function setUp(path: string, t0: Date) {
  let now = t0;
  const account = await backend.accounts.createAccount({ name: `retries-${path}`, credits: 0, now });
  assert.ok(account);
  const added = await addEndpoint(backend.webhooks, { accountId: account.id, url: `${receiver.url}${path}`, events: [], description: null, allowPrivate: 'loopback', now });
  assert.equal(added.kind, 'done');
  const endpoint = added.kind === 'done' ? added.value.endpoint : assert.fail();
  // random() = 0.5 puts the jitter at 0: each wait is the schedule's own.
  const sender = new WebhookSender({ webhooks: backend.webhooks, allowPrivate: 'loopback', timeoutMs: 5_000, pollMs: 1_000, log: silentLogger, now: () => now, random: () => 0.5 });
  const delivery = await backend.webhooks.sendTest({ accountId: account.id, endpointId: endpoint.id, now });
  assert.ok(delivery);
  const state = async () => (await backend.webhooks.deliveries(account.id, endpoint.id, 1))[0];
  return {
    sender,
    state,
    at: (ms: number) => (now = new Date(t0.getTime() + ms)),
    hits: () => receiver.received.filter((r) => r.path === path).length,
    /** Ends the test's deliveries, so the next test's sender meets only its own. */
    done: () => backend.webhooks.deleteEndpoint(account.id, endpoint.id),
  };
}

test('the schedule is Standard Webhooks’ example: ten attempts over about three days, each wait within 10 % jitter', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  assert.equal(MAX_ATTEMPTS, 10);
  const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
  assert.equal(total, ((75 * 60 + 35) * 60 + 5) * 1000, 'the last attempt 75 h 35 min 5 s after the first');
  assert.equal(nextAttemptAt(1, t0, () => 0)?.getTime(), t0.getTime() + 4_500);
  assert.equal(nextAttemptAt(1, t0, () => 0.999_999)?.getTime(), t0.getTime() + 5_500);
  assert.equal(nextAttemptAt(MAX_ATTEMPTS, t0, () => 0.5), null);
});

test('a failed attempt is tried again when the schedule says, not before, and then delivered', async () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const s = await setUp('/flaky', t0);
  receiver.answer = (r) => (r.path === '/flaky' && s.hits() <= 2 ? 500 : 200);
  assert.equal(await s.sender.sendDue(), 1);
  let d = await s.state();
  assert.equal(d?.state, 'pending');
  assert.equal(d?.lastStatus, 500);
  assert.equal(d?.nextAttemptAt, new Date(t0.getTime() + 5_000).toISOString());
  s.at(4_999);
  assert.equal(await s.sender.sendDue(), 0, 'not before the 5 s wait');
  s.at(5_000);
  assert.equal(await s.sender.sendDue(), 1);
  d = await s.state();
  assert.equal(d?.attempts, 2);
  assert.equal(d?.nextAttemptAt, new Date(t0.getTime() + 5_000 + 5 * 60_000).toISOString(), 'then 5 min');
  s.at(5_000 + 5 * 60_000);
  assert.equal(await s.sender.sendDue(), 1);
  d = await s.state();
  assert.equal(d?.state, 'delivered');
  assert.equal(d?.attempts, 3);
  assert.equal(s.hits(), 3);
  const ids = new Set(receiver.received.filter((r) => r.path === '/flaky').map((r) => r.id));
  assert.equal(ids.size, 1, 'every attempt carries the same webhook-id');
  await s.done();
});

test('a Retry-After longer than the scheduled wait is honoured', async () => {
  const t0 = new Date('2026-01-02T00:00:00Z');
  const s = await setUp('/busy', t0);
  receiver.answer = (r) => (r.path === '/busy' ? { status: 503, headers: { 'retry-after': '120' } } : 200);
  assert.equal(await s.sender.sendDue(), 1);
  assert.equal((await s.state())?.nextAttemptAt, new Date(t0.getTime() + 120_000).toISOString());
  assert.equal(nextAttemptAt(1, t0, () => 0.5, 1_000)?.getTime(), t0.getTime() + 5_000, 'a shorter one does not hurry the schedule');
  receiver.answer = 200;
  await s.done();
});

test('a redirect is a failed attempt and is not followed', async () => {
  const t0 = new Date('2026-01-03T00:00:00Z');
  const s = await setUp('/moved', t0);
  receiver.answer = (r) => (r.path === '/moved' ? 302 : 200);
  assert.equal(await s.sender.sendDue(), 1);
  const d = await s.state();
  assert.equal(d?.state, 'pending');
  assert.equal(d?.lastStatus, 302);
  assert.equal(receiver.received.filter((r) => r.path === '/redirected').length, 0);
  receiver.answer = 200;
  await s.done();
});

test('after the tenth failed attempt the delivery ends failed and is not tried again', async () => {
  const t0 = new Date('2026-01-04T00:00:00Z');
  const s = await setUp('/down', t0);
  receiver.answer = (r) => (r.path === '/down' ? 500 : 200);
  let elapsed = 0;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    assert.equal(await s.sender.sendDue(), 1, `attempt ${attempt}`);
    elapsed += RETRY_DELAYS_MS[attempt - 1] ?? 0;
    s.at(elapsed);
  }
  const d = await s.state();
  assert.equal(d?.state, 'failed');
  assert.equal(d?.attempts, MAX_ATTEMPTS);
  assert.equal(d?.nextAttemptAt, null);
  s.at(elapsed + 365 * 86_400_000);
  assert.equal(await s.sender.sendDue(), 0);
  assert.equal(s.hits(), MAX_ATTEMPTS);
  receiver.answer = 200;
  await s.done();
});

test('an endpoint that does not answer within the deadline is a failed attempt, retried on the schedule', async () => {
  const t0 = new Date('2026-01-05T00:00:00Z');
  const s = await setUp('/slow', t0);
  let release = (): void => undefined;
  receiver.hold = new Promise<void>((resolve) => (release = resolve));
  const impatient = new WebhookSender({ webhooks: backend.webhooks, allowPrivate: 'loopback', timeoutMs: 300, pollMs: 1_000, log: silentLogger, now: () => t0, random: () => 0.5 });
  try {
    assert.equal(await impatient.sendDue(), 1);
  } finally {
    receiver.hold = null;
    release();
  }
  const d = await s.state();
  assert.equal(d?.state, 'pending');
  assert.equal(d?.lastStatus, null);
  assert.equal(d?.lastError, 'no answer within 300 ms');
  assert.equal(d?.nextAttemptAt, new Date(t0.getTime() + 5_000).toISOString());
  await s.done();
});

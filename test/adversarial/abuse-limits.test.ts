import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { newIdem, waitFinal } from '../api/harness.js';
import { BACKENDS } from '../backends.js';
import { countRequests, harnessOn } from '../api/harness.js';
import { assertSpecAnswer, rawRequest } from './raw-http.js';

/**
 * Limits under attack: a burst from many connections against the token bucket (docs/design.md §4:
 * 20/s, burst 40), and batches and checks racing to overdraw an account's credits. On SQLite,
 * and on PostgreSQL when it is reachable (row locks and shared buckets are where races live).
 */
const PER_SECOND = 20;
const BURST = 40;

for (const backend of BACKENDS) describe(`abuse: rate limits and credits (${backend.name})`, () => {
  const on = harnessOn(backend, { env: { PRESEND_RATE_LIMIT_PER_SECOND: String(PER_SECOND), PRESEND_RATE_LIMIT_BURST: String(BURST) } });

  const requestsOf = (accountId: string) => countRequests(on.h, accountId);

  test('a batch that would overdraw the balance is 402 and changes nothing: no hold, no request, no idempotency record', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const { h } = on;
    const a = await h.newAccount(5);
    const before = await h.backend.ledger.getBalance(a.accountId);
    const idem = newIdem();
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem, body: { emails: Array.from({ length: 6 }, (_, i) => `deliverable+${i}@example${i}.com`) } });
    assert.equal(r.status, 402);
    assert.equal(r.body.error.code, 'insufficient_credits');
    assert.deepEqual(await h.backend.ledger.getBalance(a.accountId), before);
    assert.equal(await requestsOf(a.accountId), 0);
    // The key was not burnt by the refusal: a smaller batch under it is accepted.
    const smaller = await h.call('POST', '/v1/requests', { key: a.live, idem, body: { emails: ['deliverable@example.com'] } });
    assert.equal(smaller.status, 202);
  });

  test('twelve batches racing for ten credits hold at most ten, and the balance never goes below zero', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const { h } = on;
    const a = await h.newAccount(10);
    // 3 unique addresses each (the sandbox behind the live key makes them actionable: debited).
    const bodies = Array.from({ length: 12 }, (_, n) => ({ emails: [`deliverable+${n}a@example.com`, `deliverable@race${n}.example`, `role@race${n}.example`] }));
    const answers = await Promise.all(bodies.map((body) => rawRequest(h.url, 'POST', '/v1/requests', { 'x-api-key': a.live, 'idempotency-key': newIdem(), 'content-type': 'application/json' }, JSON.stringify(body))));
    for (const answer of answers) assertSpecAnswer('createBatch', answer, 'race');
    const created = answers.filter((r) => r.status === 202);
    const refused = answers.filter((r) => r.status === 402);
    assert.equal(created.length + refused.length, 12, answers.map((r) => r.status).join(','));
    assert.equal(created.length, 3, 'three batches of three fit in ten credits');
    assert.equal(await requestsOf(a.accountId), 3);
    const balance = await h.backend.ledger.getBalance(a.accountId);
    assert.ok(balance.available >= 0 && balance.held + balance.debited <= 10, JSON.stringify(balance));
    for (const r of created) await waitFinal(h, a.live, JSON.parse(r.text).request.id);
    const final = await h.backend.ledger.getBalance(a.accountId);
    assert.deepEqual({ debited: final.debited, held: final.held, available: final.available }, { debited: 9, held: 0, available: 1 });
  });

  test('twenty single checks racing for three credits debit at most three, the rest are 402', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const { h } = on;
    const a = await h.newAccount(3);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        rawRequest(h.url, 'POST', '/v1/verify', { 'x-api-key': a.live, 'idempotency-key': newIdem(), 'content-type': 'application/json' }, JSON.stringify({ email: `deliverable@check${n}.example` })),
      ),
    );
    for (const answer of answers) assertSpecAnswer('verify', answer, 'race');
    const ok = answers.filter((r) => r.status === 200);
    assert.ok(ok.length <= 3, `${ok.length} checks were answered with 3 credits`);
    assert.equal(ok.length + answers.filter((r) => r.status === 402).length, 20, answers.map((r) => r.status).join(','));
    const balance = await h.backend.ledger.getBalance(a.accountId);
    assert.equal(balance.debited, ok.length);
    assert.ok(balance.available >= 0);
  });
});

/**
 * Batches over stored lists (issue #12, finding 2): a batch over a list of several fill chunks
 * holds every address exactly once (the 100,000-address run that bounds the event loop is
 * test/load/list-batch-blocking.load.ts); a list over the size cap is 422 `list_too_large`; work
 * past the account's cap of unfinished items is 429 `too_much_outstanding_work` with Retry-After;
 * a live key's credits for duplicates and invalid entries come back; a fill left by a process
 * that died is resumed once its lease lapses.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { allResultItems, startHarness, newIdem, waitFinal } from './harness.js';
import type { Harness } from './harness.js';
import { isError } from './schema-check.js';
import { idempotencyClaim } from '../../src/service/checks/idempotency.js';
import { listBatchHoldsEveryAddressOnce } from './list-batch-check.js';

/** Several fill chunks (2,000 entries each), so duplicates across chunks are met; the 100,000-address run that bounds the event loop is test/load/list-batch-blocking.load.ts. */
const SIZE = 12_000;

describeOnEveryBackend('batches over large lists', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend, env: { PRESEND_RATE_LIMIT_PER_SECOND: '100000', PRESEND_RATE_LIMIT_BURST: '100000' } });
  });
  after(async () => h.close());

  test(`a ${SIZE.toLocaleString('en-US')}-address list batch (${Math.ceil(SIZE / 2_000)} fill chunks) holds every address once`, async () => {
    await listBatchHoldsEveryAddressOnce(h, SIZE, { timeoutMs: 120_000 });
  });

  test('a list over PRESEND_LIST_MAX_ENTRIES is 422 list_too_large; work past PRESEND_ACCOUNT_MAX_OUTSTANDING is 429 with Retry-After', async () => {
    const g = await startHarness({ backend, env: { PRESEND_LIST_MAX_ENTRIES: '3', PRESEND_ACCOUNT_MAX_OUTSTANDING: '5', PRESEND_RECHECK_DELAY_MS: '600000', PRESEND_SANDBOX_RECHECK_DELAY_MS: '600000' } });
    try {
      const a = await g.newAccount(100);
      const list = await g.backend.lists.importList({ accountId: a.accountId, name: 'four', now: new Date(), entries: [['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com']] });
      const big = await g.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { listId: list.id } });
      isError(big, 422, 'list_too_large');
      assert.match(big.body.error.message, /4 entries; at most 3/);
      // Greylisted addresses stay open until their recheck (10 minutes away): outstanding work.
      const first = await g.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: ['greylisted+1@example.com', 'greylisted+2@example.com', 'greylisted+3@example.com'] } });
      assert.equal(first.status, 202);
      const second = await g.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: ['greylisted+4@example.com', 'greylisted+5@example.com', 'greylisted+6@example.com'] } });
      isError(second, 429, 'too_much_outstanding_work');
      assert.ok(Number(second.headers.get('retry-after')) >= 1);
      assert.match(second.body.error.message, /adds 3 items to the account's 3 unfinished ones; at most 5/);
      // Another account is not held back by this one's work.
      const b = await g.newAccount(0);
      assert.equal((await g.call('POST', '/v1/requests', { key: b.test, idem: newIdem(), body: { emails: ['x1@example.com', 'x2@example.com', 'x3@example.com'] } })).status, 202);
      // A list that fits is accepted.
      const small = await g.backend.lists.importList({ accountId: b.accountId, name: 'two', now: new Date(), entries: [['p@example.com', 'q@example.com']] });
      assert.equal((await g.call('POST', '/v1/requests', { key: b.test, idem: newIdem(), body: { listId: small.id } })).status, 202);
    } finally {
      await g.close();
    }
  });

  test('a live list batch holds one credit per entry and gets back those of duplicates and invalid entries', async () => {
    const a = await h.newAccount(1_000);
    const entries = Array.from({ length: 1_200 }, (_, i) => `live${i % 1_000}@example.com`);
    entries.push('not an address');
    const list = await h.backend.lists.importList({ accountId: a.accountId, name: 'dups', now: new Date(), entries: [entries] });
    // 1,201 entries need 1,201 credits at creation: refused with 1,000.
    isError(await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { listId: list.id } }), 402, 'insufficient_credits');
    await h.backend.ledger.grantCredits(a.accountId, 201, new Date());
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { listId: list.id } });
    assert.equal(r.status, 202);
    const final = await waitFinal(h, a.live, r.body.request.id, 120_000);
    assert.equal(final.counters.unique, 1_001);
    assert.equal(final.counters.creditsDebited + final.counters.creditsReleased, 1_000);
    const balance = await h.backend.ledger.getBalance(a.accountId);
    assert.equal(balance.held, 0, 'nothing stays held');
    assert.equal(balance.available, 1_201 - final.counters.creditsDebited);
  });

  test('a fill whose process died (its lease lapsed) is resumed and the batch finalizes', async () => {
    const a = await h.newAccount(0);
    const entries = Array.from({ length: 1_234 }, (_, i) => `resume${i}@example.com`);
    const list = await h.backend.lists.importList({ accountId: a.accountId, name: 'resume', now: new Date(), entries: [entries] });
    const now = new Date();
    // As a process that created the batch and died before writing a chunk leaves it.
    const created = await h.backend.batches.create({
      accountId: a.accountId,
      keyId: 'dead-process',
      mode: 'list',
      listId: list.id,
      total: entries.length,
      items: [],
      fillFromList: { lease: { owner: 'gone#1', until: new Date(now.getTime() - 1) } },
      billable: false,
      idempotency: idempotencyClaim('POST /v1/requests', 'test', newIdem(), { listId: list.id }, now),
      now,
      retentionDays: 30,
    });
    assert.equal(created.kind, 'created');
    const id = (created as { request: { id: string } }).request.id;
    const final = await waitFinal(h, a.test, id, 60_000);
    assert.equal(final.request.state, 'completed');
    assert.equal(final.counters.unique, entries.length);
    assert.equal((await allResultItems(h, a.test, id)).length, entries.length);
  });
});

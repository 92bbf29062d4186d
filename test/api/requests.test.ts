import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { startHarness, newIdem, waitFinal } from './harness.js';
import type { Harness } from './harness.js';
import { isBatchRequest, isError } from './schema-check.js';
import { until } from '../until.js';

describeOnEveryBackend('POST /v1/requests and GET /v1/requests/{id}', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend });
  });
  after(async () => h.close());

  test('a new batch is 202 with counters, holds one credit per unique address, and finalizes with exact credits', async () => {
    const a = await h.newAccount(10);
    const emails = ['deliverable@example.com', 'Deliverable@EXAMPLE.com', 'undeliverable@example.com', 'unknown@example.com'];
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(r.status, 202);
    isBatchRequest(r.body);
    assert.equal(r.body.request.mode, 'emails');
    assert.equal(r.body.counters.total, 4);
    // The local part is kept as given, so only the domain's case folds: 4 given, 4 unique.
    assert.equal(r.body.counters.unique, 4);
    assert.equal(r.body.counters.creditsHeld + r.body.counters.creditsDebited + r.body.counters.creditsReleased, 4);
    assert.equal(r.body.replayed, undefined);
    const final = await waitFinal(h, a.live, r.body.request.id);
    isBatchRequest(final);
    assert.equal(final.request.state, 'completed');
    assert.deepEqual(
      { finalized: final.request.finalized, partial: final.request.partial, countsMayChange: final.request.countsMayChange },
      { finalized: true, partial: false, countsMayChange: false },
    );
    assert.equal(final.counters.creditsHeld, 0);
    assert.equal(final.counters.creditsDebited, 3);
    assert.equal(final.counters.creditsReleased, 1);
    assert.equal(final.counters.send, 2);
    assert.equal(final.counters.suppress, 1);
    assert.equal(final.counters.doNotDecide, 1);
    assert.equal(final.request.finalization.results, 4);
    assert.equal(final.request.finalization.creditsDebited, 3);
    assert.ok(Date.parse(final.request.retentionExpiresAt) > Date.parse(final.request.finalization.finalizedAt));
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 7);
  });

  test('duplicates differing only in the domain’s case are verified once', async () => {
    const a = await h.newAccount(10);
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['x@Example.COM', 'x@example.com', 'x@example.com'] } });
    assert.equal(r.status, 202);
    assert.equal(r.body.counters.total, 3);
    assert.equal(r.body.counters.unique, 1);
    assert.equal(r.body.counters.duplicates, 2);
    const final = await waitFinal(h, a.live, r.body.request.id);
    assert.equal(final.counters.creditsDebited, 1);
  });

  test('an identical replay is 200 with replayed true and the same request id; a different body is 422', async () => {
    const a = await h.newAccount(10);
    const idem = newIdem();
    const body = { emails: ['deliverable@example.com'] };
    const first = await h.call('POST', '/v1/requests', { key: a.live, idem, body });
    const replay = await h.call('POST', '/v1/requests', { key: a.live, idem, body });
    assert.equal(replay.status, 200);
    isBatchRequest(replay.body);
    assert.equal(replay.body.replayed, true);
    assert.equal(replay.body.request.id, first.body.request.id);
    isError(await h.call('POST', '/v1/requests', { key: a.live, idem, body: { emails: ['other@example.com'] } }), 422, 'idempotency_key_reused');
    await waitFinal(h, a.live, first.body.request.id);
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 9);
  });

  test('two identical requests racing create exactly one request', async () => {
    const a = await h.newAccount(10);
    const idem = newIdem();
    const body = { emails: ['deliverable@example.com', 'undeliverable@example.com'] };
    const [x, y] = await Promise.all([h.call('POST', '/v1/requests', { key: a.live, idem, body }), h.call('POST', '/v1/requests', { key: a.live, idem, body })]);
    assert.deepEqual([x.status, y.status].sort(), [200, 202]);
    assert.equal(x.body.request.id, y.body.request.id);
    await waitFinal(h, a.live, x.body.request.id);
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 8);
  });

  test('the same Idempotency-Key in two accounts makes two requests', async () => {
    const a = await h.newAccount(5);
    const b = await h.newAccount(5);
    const idem = newIdem();
    const body = { emails: ['deliverable@example.com'] };
    const x = await h.call('POST', '/v1/requests', { key: a.live, idem, body });
    const y = await h.call('POST', '/v1/requests', { key: b.live, idem, body });
    assert.equal(x.status, 202);
    assert.equal(y.status, 202);
    assert.notEqual(x.body.request.id, y.body.request.id);
  });

  test('both or neither of emails and listId, an empty list, unknown fields and over 10,000 emails are 400', async () => {
    const a = await h.newAccount(20_000);
    const key = a.live;
    isError(await h.call('POST', '/v1/requests', { key, idem: newIdem(), body: {} }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/requests', { key, idem: newIdem(), body: { emails: ['a@example.com'], listId: '00000000-0000-4000-8000-000000000000' } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/requests', { key, idem: newIdem(), body: { emails: [] } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/requests', { key, idem: newIdem(), body: { emails: ['a@example.com'], priority: 1 } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/requests', { key, idem: newIdem(), body: { listId: 'not-a-uuid' } }), 400, 'invalid_request');
    const many = Array.from({ length: 10_001 }, (_, i) => `u${i}@example.com`);
    isError(await h.call('POST', '/v1/requests', { key, idem: newIdem(), body: { emails: many } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/requests', { key, body: { emails: ['a@example.com'] } }), 400, 'missing_idempotency_key');
  });

  test('10,000 internationalised addresses sent with \\u escapes (as many JSON encoders do) fit the body limit', async () => {
    const a = await h.newAccount(0);
    const label = '測試網域名稱測試網域名稱測試網域';
    const domain = `${[label, label, label, label, label].join('.')}.example`;
    const emails = Array.from({ length: 10_000 }, (_, i) => `${'ü'.repeat(28)}${String(i).padStart(4, '0')}@${domain}`);
    const escaped = JSON.stringify({ emails }).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    assert.ok(escaped.length > 4 * 1024 * 1024, 'the body is larger than a naive 4 MiB limit');
    const r = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), rawBody: escaped, headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 202, JSON.stringify(r.body).slice(0, 300));
    isBatchRequest(r.body);
    assert.equal(r.body.counters.unique, 10_000);
  });

  test('an address failing the syntax check is 400 invalid_email naming its index', async () => {
    const a = await h.newAccount(5);
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['ok@example.com', 'ok2@example.com', 'broken@@example'] } });
    isError(r, 400, 'invalid_email');
    assert.match(r.body.error.message, /emails\[2\]/);
  });

  test('an address with a trailing line break is 400 invalid_email naming its index and the line feed', async () => {
    const a = await h.newAccount(5);
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['ok@example.com', 'ok2@example.com\n'] } });
    isError(r, 400, 'invalid_email');
    assert.equal(r.body.error.message, 'emails[1] is not a valid address: it ends with a line feed (U+000A); send the address without surrounding white space');
  });

  test('a batch larger than the balance is 402 and holds nothing', async () => {
    const a = await h.newAccount(1);
    isError(await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['a@example.com', 'b@example.com'] } }), 402, 'insufficient_credits');
    assert.deepEqual(await h.backend.ledger.getBalance(a.accountId), { granted: 1, debited: 0, held: 0, available: 1 });
  });

  test('a sandbox batch holds and bills nothing', async () => {
    const a = await h.newAccount(0);
    const r = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: ['deliverable@example.com', 'undeliverable@example.com'] } });
    assert.equal(r.status, 202);
    assert.equal(r.body.counters.creditsHeld, 0);
    const final = await waitFinal(h, a.test, r.body.request.id);
    assert.equal(final.counters.creditsDebited, 0);
    assert.equal(final.counters.creditsReleased, 0);
  });

  test('lists: unknown or foreign is 404 list_not_found, importing is 422 list_not_ready, an invalid entry becomes a rejected item', async () => {
    const a = await h.newAccount(10);
    const b = await h.newAccount(10);
    isError(await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { listId: '00000000-0000-4000-8000-000000000000' } }), 404, 'list_not_found');
    const list = await h.backend.lists.createList({ accountId: a.accountId, name: 'l', now: new Date() });
    await h.backend.lists.appendListEntries(list.id, ['deliverable@example.com', 'not an address', 'DELIVERABLE@example.com', 'undeliverable@EXAMPLE.com']);
    isError(await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { listId: list.id } }), 422, 'list_not_ready');
    await h.backend.lists.finishListImport(list.id, 'ready');
    isError(await h.call('POST', '/v1/requests', { key: b.live, idem: newIdem(), body: { listId: list.id } }), 404, 'list_not_found');
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { listId: list.id } });
    assert.equal(r.status, 202);
    assert.equal(r.body.request.mode, 'list');
    assert.equal(r.body.counters.total, 4);
    const final = await waitFinal(h, a.live, r.body.request.id);
    assert.equal(final.counters.failed, 1);
    assert.equal(final.counters.creditsDebited, 3);
    const page = await h.call('GET', `/v1/requests/${r.body.request.id}/results`, { key: a.live });
    const rejected = page.body.results.find((x: { state: string }) => x.state === 'rejected');
    assert.equal(rejected.email, 'not an address');
    assert.equal(rejected.presend.decision, 'suppress');
    assert.equal(rejected.presend.verdict, null);
    assert.equal(rejected.presend.outcome, 'non_verdict');
  });

  test('a request of another account, an unknown id and a malformed id are 404', async () => {
    const a = await h.newAccount(5);
    const b = await h.newAccount(5);
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['deliverable@example.com'] } });
    isError(await h.call('GET', `/v1/requests/${r.body.request.id}`, { key: b.live }), 404, 'request_not_found');
    isError(await h.call('GET', `/v1/requests/${r.body.request.id}/results`, { key: b.live }), 404, 'request_not_found');
    isError(await h.call('GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { key: a.live }), 404, 'request_not_found');
    isError(await h.call('GET', '/v1/requests/not-a-uuid', { key: a.live }), 404, 'request_not_found');
    isError(await h.call('GET', '/v1/requests/not-a-uuid/results', { key: a.live }), 404, 'request_not_found');
    isError(await h.call('GET', `/v1/requests/${r.body.request.id}`, {}), 401, 'unauthorized');
    isError(await h.call('POST', '/v1/requests', { idem: newIdem(), body: { emails: ['a@example.com'] } }), 401, 'unauthorized');
    isError(await h.call('POST', '/v1/requests', { bearer: 'ps_live.' + 'B'.repeat(40), idem: newIdem(), body: { emails: ['a@example.com'] } }), 401, 'unauthorized');
    isError(await h.call('GET', `/v1/requests/${r.body.request.id}/results`, { bearer: 'ps_test.short' }), 401, 'unauthorized');
    const ok = await h.call('GET', `/v1/requests/${r.body.request.id}`, { bearer: a.live });
    assert.equal(ok.status, 200);
    isBatchRequest(ok.body);
  });

  test('greylisted addresses keep the request running until their recheck, then it finalizes', async () => {
    const g = await startHarness({ backend, env: { PRESEND_RECHECK_DELAY_MS: '200' } });
    try {
      const a = await g.newAccount(5);
      const r = await g.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['greylisted@example.com', 'deliverable@example.com'] } });
      let sawRechecking = false;
      await until('the batch completes', async () => {
        const s = await g.call('GET', `/v1/requests/${r.body.request.id}`, { key: a.live });
        if (s.body.counters.rechecking > 0) {
          sawRechecking = true;
          assert.equal(s.body.request.countsMayChange, true);
          assert.equal(s.body.request.finalized, false);
        }
        return s.body.request.state === 'completed';
      }, 60_000, 20);
      assert.ok(sawRechecking);
      const page = await g.call('GET', `/v1/requests/${r.body.request.id}/results`, { key: a.live });
      assert.equal(page.body.results.length, 2);
      const grey = page.body.results.find((x: { email: string }) => x.email.startsWith('greylisted'));
      // The stand-in engine greylists forever: after the last recheck the address is TRANSIENT, released.
      assert.equal(grey.presend.verdict, 'TRANSIENT');
      assert.equal(grey.presend.billing.disposition, 'released');
      const final = await waitFinal(g, a.live, r.body.request.id);
      assert.equal(final.counters.creditsDebited, 1);
      assert.equal(final.counters.creditsReleased, 1);
    } finally {
      await g.close();
    }
  });

  test('a sandbox batch rechecks at the sandbox delay, not the live one, and the counters say when the next recheck is due', async () => {
    // The live delay at its production default: the old sandbox waited it three times (15 minutes).
    const g = await startHarness({ backend, env: { PRESEND_RECHECK_DELAY_MS: '300000', PRESEND_SANDBOX_RECHECK_DELAY_MS: '1000' } });
    try {
      const a = await g.newAccount(5);
      const emails = ['greylisted@example.com', 'deliverable@example.com'];
      const sandbox = await g.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails } });
      const live = await g.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
      const statusOf = async (id: string, key: string) => (await g.call('GET', `/v1/requests/${id}`, { key })).body;

      const seen: number[] = [];
      await until('the sandbox batch completes', async () => {
        const s = await statusOf(sandbox.body.request.id, a.test);
        isBatchRequest(s);
        if (s.counters.rechecking > 0) seen.push(s.counters.nextRecheckInSeconds);
        else assert.equal('nextRecheckInSeconds' in s.counters, false, 'only while a recheck waits');
        return s.request.state === 'completed';
      }, 60_000, 50);
      assert.ok(seen.length > 0, 'the sandbox batch was seen waiting for a recheck');
      assert.ok(seen.every((n) => Number.isInteger(n) && n >= 0 && n <= 1), `seconds to the next sandbox recheck: ${seen.join(',')}`);

      // The live batch's recheck is minutes away, and says so.
      const waiting = await until('the live batch waits for its recheck', async () => {
        const s = await statusOf(live.body.request.id, a.live);
        return s.counters.rechecking ? s : null;
      }, 60_000, 50);
      assert.ok(waiting.counters.nextRecheckInSeconds > 250 && waiting.counters.nextRecheckInSeconds <= 300, `live: ${waiting.counters.nextRecheckInSeconds}`);
    } finally {
      await g.close();
    }
  });
});

describeOnEveryBackend('batches the engine cannot verify', (backend) => {
  test('an address that breaks the engine ends failed after its attempts, its chunk-mates finish, and a batch of only those is failed', async () => {
    const h = await startHarness({ backend, server: { worker: { pollMs: 20, leaseMs: 150, maxAttempts: 2 } } });
    try {
      const a = await h.newAccount(10);
      const mixed = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['crash@x.example', 'deliverable@x.example'] } });
      const done = await waitFinal(h, a.live, mixed.body.request.id);
      assert.equal(done.request.state, 'completed');
      assert.deepEqual([done.counters.failed, done.counters.completed, done.counters.creditsDebited, done.counters.creditsReleased], [1, 1, 1, 1]);

      const broken = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['crash1@x.example', 'crash2@x.example'] } });
      const failed = await waitFinal(h, a.live, broken.body.request.id);
      isBatchRequest(failed);
      assert.equal(failed.request.state, 'failed');
      assert.equal(failed.request.errorCode, 'engine_unavailable');
      assert.deepEqual(
        { finalized: failed.request.finalized, partial: failed.request.partial, countsMayChange: failed.request.countsMayChange },
        { finalized: false, partial: true, countsMayChange: false },
      );
      assert.equal(failed.request.finalization.outcome, 'failed');
      assert.equal(failed.counters.creditsReleased, 2);
      assert.deepEqual(await h.backend.ledger.getBalance(a.accountId), { granted: 10, debited: 1, held: 0, available: 9 });
      const page = await h.call('GET', `/v1/requests/${broken.body.request.id}/results`, { key: a.live });
      assert.equal(page.body.results.length, 2);
      assert.equal(page.body.nextCursor === null || typeof page.body.nextCursor === 'string', true);
      assert.equal(page.body.finalized, false);
      assert.equal(page.body.results[0].presend.status, 'failed');
    } finally {
      await h.close();
    }
  });
});

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { startHarness, newIdem, waitFinal } from './harness.js';
import type { Harness } from './harness.js';
import { isError, isResultsPage } from './schema-check.js';
import { until } from '../until.js';

/** Full export by cursor (docs/interface-spec.md §4): until nextCursor is null on a finalized request. */
async function exportAll(h: Harness, key: string, id: string, limit: number) {
  const seen: string[] = [];
  const cursors = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  // Nothing more as of now and not finalized: ask again later with the cursor we sent.
  await until('the export reaches the end of the finalized request', async () => {
    for (;;) {
      const q: string = cursor ? `?limit=${limit}&cursor=${encodeURIComponent(cursor)}` : `?limit=${limit}`;
      const r = await h.call('GET', `/v1/requests/${id}/results${q}`, { key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      isResultsPage(r.body);
      pages++;
      for (const item of r.body.results) seen.push(item.email);
      if (r.body.results.length > 0) assert.ok(r.body.nextCursor !== null || r.body.finalized, 'a non-empty page of a running request has a cursor');
      if (r.body.nextCursor === null) return r.body.finalized === true;
      assert.ok(!cursors.has(r.body.nextCursor), 'a cursor never repeats');
      cursors.add(r.body.nextCursor);
      cursor = r.body.nextCursor;
    }
  }, 60_000, 20);
  return { seen, pages };
}

describeOnEveryBackend('GET /v1/requests/{id}/results', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend, env: { PRESEND_WORKER_CONCURRENCY: '16' } });
  });
  after(async () => h.close());

  test('a cursor export while the batch runs never repeats or skips an item', async () => {
    const a = await h.newAccount(1000);
    const emails = Array.from({ length: 120 }, (_, i) => (i % 40 === 5 ? `slow+${i}@d${i % 7}.example` : `deliverable${i}@d${i % 7}.example`));
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(r.status, 202);
    const { seen } = await exportAll(h, a.live, r.body.request.id, 7);
    assert.equal(seen.length, 120);
    assert.equal(new Set(seen).size, 120);
    assert.deepEqual([...seen].sort(), [...emails].sort());
  });

  test('pages report limit and offset, clamp the limit, and the last page of a finalized request has no cursor', async () => {
    const a = await h.newAccount(100);
    const emails = Array.from({ length: 5 }, (_, i) => `deliverable${i}@example.com`);
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    const id = r.body.request.id;
    await waitFinal(h, a.live, id);
    const p1 = await h.call('GET', `/v1/requests/${id}/results?limit=2`, { key: a.live });
    isResultsPage(p1.body);
    assert.equal(p1.body.jobId, id);
    assert.deepEqual([p1.body.limit, p1.body.offset, p1.body.results.length], [2, 0, 2]);
    assert.equal(p1.body.finalized, true);
    assert.equal(p1.body.partial, false);
    assert.equal(p1.body.countsMayChange, false);
    const p2 = await h.call('GET', `/v1/requests/${id}/results?limit=2&cursor=${p1.body.nextCursor}`, { key: a.live });
    assert.equal(p2.body.offset, 2);
    const p3 = await h.call('GET', `/v1/requests/${id}/results?limit=2&cursor=${p2.body.nextCursor}`, { key: a.live });
    assert.equal(p3.body.results.length, 1);
    assert.equal(p3.body.nextCursor, null);
    const all = await h.call('GET', `/v1/requests/${id}/results?limit=500`, { key: a.live });
    assert.equal(all.body.limit, 200);
    assert.equal(all.body.results.length, 5);
    assert.equal(all.body.nextCursor, null);
    const zero = await h.call('GET', `/v1/requests/${id}/results?limit=0`, { key: a.live });
    assert.equal(zero.body.limit, 1);
    const junk = await h.call('GET', `/v1/requests/${id}/results?limit=abc&offset=xyz`, { key: a.live });
    assert.deepEqual([junk.status, junk.body.limit, junk.body.offset], [200, 50, 0]);
    const off = await h.call('GET', `/v1/requests/${id}/results?offset=3`, { key: a.live });
    assert.deepEqual([off.body.offset, off.body.results.length], [3, 2]);
    // The cursor wins over the offset.
    const both = await h.call('GET', `/v1/requests/${id}/results?limit=2&offset=4&cursor=${p1.body.nextCursor}`, { key: a.live });
    assert.equal(both.body.offset, 2);
    assert.deepEqual(both.body.results, p2.body.results);
    const item = p1.body.results[0];
    assert.equal(item.state, item.presend.status);
    assert.deepEqual(item.reasonCodes, item.presend.reasons);
    assert.equal(item.subStatus, item.presend.reasons[0] ?? null);
    assert.ok(item.checkedAt);
  });

  test('an unknown or malformed cursor, or one from another request, is 404 cursor_not_found', async () => {
    const a = await h.newAccount(100);
    const r1 = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['deliverable@a.example', 'deliverable@b.example'] } });
    const r2 = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['deliverable@c.example', 'deliverable@d.example'] } });
    await waitFinal(h, a.live, r1.body.request.id);
    await waitFinal(h, a.live, r2.body.request.id);
    const p = await h.call('GET', `/v1/requests/${r1.body.request.id}/results?limit=1`, { key: a.live });
    isError(await h.call('GET', `/v1/requests/${r2.body.request.id}/results?cursor=${p.body.nextCursor}`, { key: a.live }), 404, 'cursor_not_found');
    isError(await h.call('GET', `/v1/requests/${r1.body.request.id}/results?cursor=garbage`, { key: a.live }), 404, 'cursor_not_found');
    const forged = Buffer.from(JSON.stringify({ r: r1.body.request.id, s: 99 })).toString('base64url');
    isError(await h.call('GET', `/v1/requests/${r1.body.request.id}/results?cursor=${forged}`, { key: a.live }), 404, 'cursor_not_found');
  });

  test('a repeated cursor parameter is 404 cursor_not_found, not a restart at the first item', async () => {
    const a = await h.newAccount(100);
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['deliverable@a.example', 'deliverable@b.example', 'deliverable@c.example'] } });
    const id = r.body.request.id;
    await waitFinal(h, a.live, id);
    const p1 = await h.call('GET', `/v1/requests/${id}/results?limit=1`, { key: a.live });
    const p2 = await h.call('GET', `/v1/requests/${id}/results?limit=1&cursor=${p1.body.nextCursor}`, { key: a.live });
    for (const query of [`cursor=${p1.body.nextCursor}&cursor=${p2.body.nextCursor}`, `cursor=${p1.body.nextCursor}&cursor=${p1.body.nextCursor}`, 'cursor=a&cursor=b']) {
      isError(await h.call('GET', `/v1/requests/${id}/results?limit=1&${query}`, { key: a.live }), 404, 'cursor_not_found');
    }
  });

  test('a 10,000-address sandbox batch completes and exports in full', async () => {
    const a = await h.newAccount(0);
    const kinds = ['deliverable', 'undeliverable', 'unknown', 'transient'];
    const emails = Array.from({ length: 10_000 }, (_, i) => `${kinds[i % 4]}+${i}@d${i % 50}.example`);
    const r = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails } });
    assert.equal(r.status, 202);
    assert.equal(r.body.counters.unique, 10_000);
    const { seen } = await exportAll(h, a.test, r.body.request.id, 200);
    assert.equal(seen.length, 10_000);
    assert.equal(new Set(seen).size, 10_000);
    const final = await waitFinal(h, a.test, r.body.request.id);
    assert.equal(final.counters.completed, 10_000);
    assert.equal(final.counters.send, 2_500);
    assert.equal(final.counters.suppress, 2_500);
    assert.equal(final.counters.pending, 0);
  });
});

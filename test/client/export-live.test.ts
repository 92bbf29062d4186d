import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PresendClient, type BatchRequest, type ExportProgress, type ResultItem } from '../../src/client/index.js';
import { startLiveService, type LiveService } from './live-service.js';

/** A sandbox batch that runs for a while: greylisted addresses are rechecked after the delay. */
function mixedBatch(): string[] {
  const emails: string[] = [];
  for (let i = 0; i < 25; i += 1) emails.push(`deliverable+${i}@example.com`);
  for (let i = 0; i < 10; i += 1) emails.push(`undeliverable+${i}@example.com`);
  for (let i = 0; i < 6; i += 1) emails.push(`greylisted+${i}@example.com`);
  emails.push('unknown@example.com', 'catchall@example.com', 'role@example.com');
  return emails;
}

describe('batches and full export against a real presend serve', () => {
  let service: LiveService;
  let client: PresendClient;

  before(async () => {
    service = await startLiveService({ env: { PRESEND_SANDBOX_RECHECK_DELAY_MS: '1500' }, accounts: [{ name: 'exporter', credits: 0, test: true }] });
    client = new PresendClient({ baseUrl: service.baseUrl, apiKey: service.keyOf('exporter') });
  });
  after(async () => {
    await service?.stop();
  });

  test('an export started while the batch runs yields every unique address once and ends on a finalized request', async () => {
    const emails = mixedBatch();
    const created = await client.createRequest({ emails });
    assert.equal(created.request.finalized, false);
    const progress: ExportProgress[] = [];
    const items: ResultItem[] = [];
    for await (const item of client.exportResults(created.request.id, { limit: 7, pollIntervalMs: 200, onProgress: (p) => progress.push(p) })) {
      items.push(item);
    }
    const exported = items.map((item) => item.email);
    assert.equal(new Set(exported).size, exported.length, 'no item twice');
    assert.deepEqual(new Set(exported), new Set(emails));
    assert.equal(progress[0]?.finalized, false, 'the export began on a running batch');
    assert.equal(progress.at(-1)?.finalized, true);

    const final = await client.getRequest(created.request.id);
    assert.equal(final.request.finalized, true);
    assert.equal(final.counters.unique, items.length);
    const greylisted = items.filter((item) => item.email?.startsWith('greylisted'));
    assert.equal(greylisted.length, 6);
  });

  test('duplicates in the input are counted, verified once and exported once', async () => {
    const created = await client.createRequest({ emails: ['deliverable@example.com', 'deliverable@EXAMPLE.com', 'undeliverable@example.com', 'deliverable@example.com'] });
    assert.equal(created.counters.total, 4);
    assert.equal(created.counters.unique, 2);
    const items: ResultItem[] = [];
    for await (const item of client.exportResults(created.request.id, { limit: 1, pollIntervalMs: 100 })) items.push(item);
    assert.equal(items.length, 2);
  });

  test('waitForRequest polls until the batch is completed, reporting counters on the way', async () => {
    const created = await client.createRequest({ emails: ['greylisted@example.com', 'deliverable@example.com'] });
    const seen: BatchRequest[] = [];
    const final = await client.waitForRequest(created.request.id, { pollIntervalMs: 100, onProgress: (batch) => seen.push(batch) });
    assert.equal(final.request.state, 'completed');
    assert.equal(final.request.finalized, true);
    assert.equal(final.request.countsMayChange, false);
    assert.ok(seen.length >= 2, 'at least one poll saw it unfinished');
    assert.equal(seen[0]?.request.finalized, false);
    assert.equal(final.counters.pending, 0);
    assert.equal(final.counters.completed, 2);
  });

  test('repeating a batch creation with the same Idempotency-Key replays the same request', async () => {
    const input = { emails: ['role@example.com', 'full@example.com'] };
    const first = await client.createRequest(input, { idempotencyKey: 'batch-replay-1' });
    const second = await client.createRequest(input, { idempotencyKey: 'batch-replay-1' });
    assert.equal(second.request.id, first.request.id);
    assert.equal(second.replayed, true);
  });

  test('paging by hand with getResults returns pages no larger than the limit, linked by nextCursor', async () => {
    const created = await client.createRequest({ emails: mixedBatch().slice(0, 20) });
    await client.waitForRequest(created.request.id, { pollIntervalMs: 100 });
    const emails: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await client.getResults(created.request.id, { limit: 6, ...(cursor ? { cursor } : {}) });
      assert.ok(page.results.length <= 6);
      assert.equal(page.finalized, true);
      emails.push(...page.results.map((item) => item.email ?? ''));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    assert.equal(emails.length, 20);
  });
});

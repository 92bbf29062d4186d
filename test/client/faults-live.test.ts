import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { IncompleteExportError, PresendClient, type ResultItem } from '../../src/client/index.js';
import { startFaultProxy, type FaultRules, type SeenRequest } from './fault-proxy.js';
import { startLiveService, type LiveService } from './live-service.js';

describe('lost answers and broken pages between the client and a real presend serve', () => {
  let service: LiveService;
  let key: string;
  let finishedBatchId: string;

  before(async () => {
    service = await startLiveService({ accounts: [{ name: 'faults', credits: 0, test: true }] });
    key = service.keyOf('faults');
    const direct = new PresendClient({ baseUrl: service.baseUrl, apiKey: key });
    const emails = Array.from({ length: 9 }, (_, i) => `deliverable+${i}@example.com`);
    const created = await direct.createRequest({ emails });
    await direct.waitForRequest(created.request.id, { pollIntervalMs: 100 });
    finishedBatchId = created.request.id;
  });
  after(async () => {
    await service?.stop();
  });

  async function withProxy<T>(rules: FaultRules, body: (client: PresendClient, seen: SeenRequest[]) => Promise<T>): Promise<T> {
    const proxy = await startFaultProxy(service.baseUrl, rules);
    try {
      return await body(new PresendClient({ baseUrl: proxy.baseUrl, apiKey: key }), proxy.seen);
    } finally {
      await proxy.close();
    }
  }

  const isResultsPage = (request: SeenRequest): boolean => request.method === 'GET' && request.path.includes('/results');

  test('a batch whose answer is lost after the service created it is retried with the same key and created once', async () => {
    await withProxy({ dropAnswer: (request) => request.method === 'POST' && request.index === 0 }, async (client, seen) => {
      const batch = await client.createRequest({ emails: ['deliverable@example.com', 'undeliverable@example.com'] });
      const posts = seen.filter((request) => request.method === 'POST');
      assert.equal(posts.length, 2);
      assert.equal(posts[0]?.idempotencyKey, posts[1]?.idempotencyKey);
      assert.equal(batch.replayed, true, 'the second attempt is a replay of the first, not a new batch');
      assert.equal(batch.counters.total, 2);
    });
  });

  test('a verification whose answer is lost is repeated with the same key and returns the same check', async () => {
    await withProxy({ dropAnswer: (request) => request.method === 'POST' && request.index === 0 }, async (client, seen) => {
      const result = await client.verify({ email: 'catchall@example.com' });
      assert.equal(result.presend.verdict, 'CATCH_ALL');
      assert.equal(seen.length, 2);
      assert.equal(seen[0]?.idempotencyKey, seen[1]?.idempotencyKey);
    });
  });

  test('a gateway 502 page in front of the service is retried with back-off and the same key, then answered by the service', async () => {
    const gateway502 = { status: 502, contentType: 'text/html', body: '<html><h1>502 Bad Gateway</h1></html>' };
    await withProxy({ answerInstead: (request) => (request.index < 2 ? gateway502 : undefined) }, async (client, seen) => {
      const batch = await client.createRequest({ emails: ['role@example.com'] });
      assert.equal(seen.length, 3);
      assert.equal(new Set(seen.map((request) => request.idempotencyKey)).size, 1);
      assert.notEqual(batch.replayed, true, 'the gateway never passed the first attempts on');
      assert.equal(batch.counters.total, 1);
    });
  });

  async function exportThrough(rules: FaultRules): Promise<{ items: ResultItem[]; error: unknown }> {
    return withProxy(rules, async (client) => {
      const items: ResultItem[] = [];
      try {
        for await (const item of client.exportResults(finishedBatchId, { limit: 3 })) items.push(item);
        return { items, error: null };
      } catch (error) {
        return { items, error };
      }
    });
  }

  /** Rewrites the JSON of the n-th results page (0-based). */
  function onPage(n: number, change: (page: Record<string, unknown>, first: Record<string, unknown> | null) => string): FaultRules {
    let pageIndex = 0;
    let firstPage: Record<string, unknown> | null = null;
    return {
      rewrite(request, status, body) {
        if (!isResultsPage(request) || status !== 200) return undefined;
        const page = JSON.parse(body) as Record<string, unknown>;
        const index = pageIndex++;
        if (index === 0) firstPage = page;
        return index === n ? change(page, firstPage) : undefined;
      },
    };
  }

  test('the export without faults reads every item once', async () => {
    const { items, error } = await exportThrough({});
    assert.equal(error, null);
    assert.equal(items.length, 9);
  });

  test('a cursor handed out twice ends the export with IncompleteExportError (repeated_cursor)', async () => {
    const { items, error } = await exportThrough(onPage(1, (page, first) => JSON.stringify({ ...page, nextCursor: first?.nextCursor })));
    assert.ok(error instanceof IncompleteExportError);
    assert.equal(error.reason, 'repeated_cursor');
    assert.equal(error.itemsReceived, items.length);
    assert.equal(new Set(items.map((item) => item.email)).size, items.length);
  });

  test('a page without nextCursor ends the export with IncompleteExportError (missing_next_cursor)', async () => {
    const { error } = await exportThrough(
      onPage(1, (page) => {
        const { nextCursor: _dropped, ...rest } = page;
        return JSON.stringify(rest);
      }),
    );
    assert.ok(error instanceof IncompleteExportError);
    assert.equal(error.reason, 'missing_next_cursor');
  });

  test('a truncated JSON page ends the export with IncompleteExportError (invalid_page)', async () => {
    const { items, error } = await exportThrough(onPage(2, (page) => JSON.stringify(page).slice(0, 40)));
    assert.ok(error instanceof IncompleteExportError);
    assert.equal(error.reason, 'invalid_page');
    assert.equal(items.length, 6, 'the items before the broken page were yielded');
  });

  test('an item served twice ends the export instead of being yielded twice (duplicate_item)', async () => {
    const { items, error } = await exportThrough(
      onPage(1, (page, first) => JSON.stringify({ ...page, results: [...(first?.results as unknown[]).slice(0, 1), ...(page.results as unknown[]).slice(1)] })),
    );
    assert.ok(error instanceof IncompleteExportError);
    assert.equal(error.reason, 'duplicate_item');
    assert.equal(new Set(items.map((item) => item.email)).size, items.length);
  });
});

/**
 * A batch's figures while it runs (src/dashboard/batch-progress.ts, the batch page): a list still
 * being read into its batch is counted in rows of the list, not as "1 of 1,500" when the list holds
 * 3,000; a running batch with decisions already counted does not say "No verdicts yet".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchProgress } from '../../src/dashboard/batch-progress.js';
import { batchPage } from '../../src/dashboard/pages/batches.js';
import { emptyCounters } from '../../src/store/billing-rules.js';
import type { BatchRequestView } from '../../src/store/roles/batches/batch-records.js';
import type { Counters } from '../../src/store/batch-request.js';

const text = (html: string): string => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

function view(state: BatchRequestView['state'], counters: Counters): BatchRequestView {
  return {
    id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    accountId: 'a',
    mode: 'list',
    state,
    errorCode: null,
    createdAt: '2030-01-01T00:00:00.000Z',
    retentionExpiresAt: null,
    finalization: null,
    sandbox: true,
    counters,
    nextRecheckAt: null,
  };
}

test('while the list is still being read, progress counts rows of the list, not the items written so far', () => {
  const midFill = { ...emptyCounters(3_000, 1_500), completed: 1, pending: 1_499, send: 1 };
  const filling = batchProgress('running', midFill, 1_500);
  assert.equal(filling.text, 'Reading the list into the batch: 1,500 of 3,000 rows so far — 1 address final');
  assert.equal(filling.max, 3_000);
  assert.equal(filling.filling, true);
  const page = text(batchPage({ view: view('running', midFill), verdicts: [], listName: 'leads', joined: true, listRowsWritten: 1_500 }));
  assert.ok(!/of 1,500 addresses final/.test(page), page);
  assert.match(page, /The list is still being read into the batch: the unique addresses and duplicates grow until it is\./);

  const read = batchProgress('running', { ...emptyCounters(3_000, 3_000), completed: 30, pending: 2_970 }, null);
  assert.equal(read.text, '1 % — 30 of 3,000 addresses final');
  assert.equal(read.filling, false);
  assert.match(batchPage({ view: view('running', emptyCounters(3_000, 3_000)), verdicts: [], listName: null, joined: false, listRowsWritten: null }), /<p data-fill-note hidden>/, 'read whole: no note');
});

test('a running batch with a decision counted does not say there are no verdicts; a finished one charts them', () => {
  const running = { ...emptyCounters(2, 2), completed: 1, pending: 1, send: 1 };
  const page = text(batchPage({ view: view('running', running), verdicts: [], listName: null, joined: false, listRowsWritten: null }));
  assert.ok(!page.includes('No verdicts yet'), page);
  assert.match(page, /The verdicts are charted here as addresses become final; the decisions above count them as they come\./);
  const done = { ...emptyCounters(2, 2), completed: 2, send: 2 };
  const finished = batchPage({ view: view('completed', done), verdicts: [{ verdict: 'DELIVERABLE', decision: 'send', count: 2 }], listName: null, joined: false, listRowsWritten: null });
  assert.match(finished, /role="img" aria-labelledby="chart-verdicts-of-this-batch"/);
  assert.match(text(finished), /100 % — 2 of 2 addresses final/);
});

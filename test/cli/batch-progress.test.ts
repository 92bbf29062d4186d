import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchProgress, untilNext } from '../../src/cli/output/batch-view.js';
import type { BatchRequest } from '../../src/client/index.js';

const NOW = new Date(2026, 10, 24, 14, 27, 55);

test('progress says how many addresses wait for a recheck and until when', () => {
  assert.equal(untilNext(null, NOW), '');
  assert.equal(untilNext(0, NOW), ' (next one due now)');
  assert.equal(untilNext(42, NOW), ' (next in 42 s, at 14:28:37)');
  assert.equal(untilNext(250, NOW), ' (next in 4 min 10 s, at 14:32:05)');

  const batch = {
    request: { id: 'b', mode: 'emails', state: 'running', createdAt: NOW.toISOString(), partial: true, finalized: false, countsMayChange: true },
    counters: { unique: 10, completed: 7, failed: 0, rechecking: 3, nextRecheckInSeconds: 5 },
    requestId: 'r',
  } as unknown as BatchRequest;
  const progress = batchProgress(batch);
  assert.equal(progress.done, 7);
  assert.equal(progress.total, 10);
  assert.match(progress.detail, /^running, 3 rechecking \(next in 5 s, at \d\d:\d\d:\d\d\)$/);
});

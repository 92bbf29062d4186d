/**
 * A batch over a 100,000-address list never blocks the event loop (issue #12, finding 2): it is
 * created at once and its items are written in chunks in the background. A timing-statistics
 * test, run by `npm run test:load` (CI runs it too); the default suite checks the same batch
 * logic on a smaller list (test/api/list-batches.test.ts). On SQLite and on PostgreSQL.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { startHarness } from '../api/harness.js';
import { listBatchHoldsEveryAddressOnce } from '../api/list-batch-check.js';
import type { Harness } from '../api/harness.js';

const SIZE = 100_000;
/**
 * The longest the event loop may stay blocked while the batch is created and filled. Before the
 * fix the whole list was read, parsed and inserted in one turn (0.42 s for 50,000 here on SQLite,
 * 19 s for 1,000,000; 720–955 ms for this list); after it the longest block measured 110–170 ms
 * (a worker's claim or results on a loaded machine), whatever the list's length — and once 282 ms
 * on PostgreSQL with two test files and the database sharing 2 cores (the watcher counts the CPU
 * of every thread of the process, a parallel garbage collection's too). On 2026-11-25 the
 * machine was slower (the API benchmark's bare route ran at 40–60 % of its speed the day
 * before) and this file ran alone: 106 ms on SQLite; 206, 348 and once 461 ms on PostgreSQL,
 * with major collections of a 400 MB heap taking up to 180 ms (--trace-gc). The bound sits
 * between the two: it fails the old copy, not a slow machine.
 */
const MAX_BLOCKED_MS = 600;

/**
 * The longest time the event loop was held between two ticks of a 5 ms timer: the gap between
 * ticks, but no more than the CPU this process used meanwhile — on a loaded shared machine a
 * process that is merely waiting for a core also sees long gaps, without holding its loop.
 */
function watchEventLoop(): { stop(): number } {
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let last = performance.now();
  let lastCpu = cpuMs();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    worst = Math.max(worst, Math.min(now - last - 5, cpu - lastCpu));
    last = now;
    lastCpu = cpu;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return worst;
    },
  };
}

describeOnEveryBackend('a batch over a large list', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend, env: { PRESEND_RATE_LIMIT_PER_SECOND: '100000', PRESEND_RATE_LIMIT_BURST: '100000' } });
  });
  after(async () => h.close());

  test(`a ${SIZE.toLocaleString('en-US')}-address list batch never blocks the event loop more than ${MAX_BLOCKED_MS} ms and holds every address once`, async () => {
    let watch: { stop(): number } | null = null;
    let blocked = 0;
    await listBatchHoldsEveryAddressOnce(h, SIZE, {
      timeoutMs: 240_000,
      whileRunning: {
        start: () => (watch = watchEventLoop()),
        stop: () => (blocked = watch?.stop() ?? 0),
      },
    });
    assert.ok(blocked <= MAX_BLOCKED_MS, `the event loop was blocked for ${Math.round(blocked)} ms (bound ${MAX_BLOCKED_MS} ms)`);
  });
});

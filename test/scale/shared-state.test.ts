/**
 * The engine's and the queue's shared state on PostgreSQL, seen from two processes' worth of
 * pools: per-MX session slots, domain facts, and pg-boss wake-ups between an API node and a
 * worker. Skipped with a message when PostgreSQL is unreachable and PRESEND_TEST_POSTGRES is unset.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshDatabase } from './fresh-database.js';
import { openBackend } from '../../src/store/open-backend.js';
import { createPgSessionLimiter } from '../../src/store/postgres/limiter.js';
import { createPgFactsCache } from '../../src/store/postgres/facts-cache.js';
import { openPgBossQueue } from '../../src/queue/pg-boss.js';

const fresh = await freshDatabase();
const skip = fresh.kind === 'skip' ? fresh.reason : false;
const url = fresh.kind === 'ready' ? fresh.db.url : '';

let pools: pg.Pool[] = [];

after(async () => {
  // Pools end before the database is dropped: DROP … WITH (FORCE) terminates whatever is still
  // connected, and an idle client terminated under a pool is an 'error' event.
  await Promise.all(pools.map((p) => p.end()));
  if (fresh.kind === 'ready') await fresh.db.drop();
});

function testPool(max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => undefined); // as src/store/postgres/database.ts does
  return pool;
}

describe('shared engine state on PostgreSQL', { skip }, () => {
  before(async () => {
    const store = await openBackend(url); // makes sure the tables exist
    await store.close();
    pools = [testPool(4), testPool(4)];
  });

  test('two workers together never hold more session slots for one MX host than the limit', async () => {
    const limiters = pools.map((p) => createPgSessionLimiter(p, { maxPerHost: 3, leaseMs: 30_000 }));
    let active = 0;
    let peak = 0;
    const session = async (i: number) => {
      const release = await limiters[i % 2]!.acquire('mx.limit.example');
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      await release();
    };
    await Promise.all(Array.from({ length: 40 }, (_, i) => session(i)));
    assert.equal(peak, 3);
    await Promise.all(limiters.map((l) => l.close()));
  });

  test("a dead worker's session slot frees itself when its lease runs out", async () => {
    // The "dead" worker's pool is ended under it: its heartbeat stops, its row stays behind.
    const deadPool = testPool(1);
    const dead = createPgSessionLimiter(deadPool, { maxPerHost: 1, leaseMs: 300 });
    await dead.acquire('mx.dead.example');
    await deadPool.end();
    const survivor = createPgSessionLimiter(pools[1]!, { maxPerHost: 1, leaseMs: 30_000 });
    const release = await survivor.acquire('mx.dead.example');
    assert.equal(survivor.held(), 1);
    await release();
    await Promise.all([survivor.close(), dead.close()]);
  });

  test('a waiting acquire gives up when its signal aborts', async () => {
    const limiter = createPgSessionLimiter(pools[0]!, { maxPerHost: 1, leaseMs: 30_000 });
    const release = await limiter.acquire('mx.abort.example');
    const abort = new AbortController();
    const waiting = limiter.acquire('mx.abort.example', abort.signal);
    abort.abort(new Error('stopped'));
    await assert.rejects(waiting, /stopped/);
    await release();
    await limiter.close();
  });

  test('a domain fact cached by one worker is seen by another until it expires', async () => {
    const [one, two] = pools.map((p) => createPgFactsCache(p, { localTtlMs: 0 }));
    await one!.set('mx:shared.example', { kind: 'hosts', hosts: [{ name: 'mx.shared.example', preference: 10 }], implicit: false }, 60_000);
    assert.deepEqual(await two!.get('mx:shared.example'), { kind: 'hosts', hosts: [{ name: 'mx.shared.example', preference: 10 }], implicit: false });
    await one!.set('catchall:short.example', true, 1);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await two!.get('catchall:short.example'), undefined);
    assert.ok((await two!.purgeExpired()) >= 1);
  });

  test('a batch published on an API node wakes a worker waiting in another process', async () => {
    const apiNode = await openPgBossQueue(url, { poolSize: 2, affinity: 'api' });
    const worker = await openPgBossQueue(url, { poolSize: 2, affinity: 'worker-a', pollMs: 50 });
    try {
      const abort = new AbortController();
      // Subscribed first; then a wait with a limit far beyond the test's own timeout ends only by the publish.
      await worker.listen();
      const woken = worker.waitForWork(abort.signal, 3_600_000).then(() => 'woken');
      await apiNode.publish('request-1');
      assert.equal(await woken, 'woken');
      abort.abort();
    } finally {
      await Promise.all([apiNode.close(), worker.close()]);
    }
  });

  test('a published batch wakes a waiting worker at once through NOTIFY, not at its next pg-boss poll', async () => {
    const apiNode = await openPgBossQueue(url, { poolSize: 2, affinity: 'api' });
    // pg-boss is asked once when the worker starts waiting, then not for an hour.
    const worker = await openPgBossQueue(url, { poolSize: 2, affinity: 'worker-notify', pollMs: 3_600_000 });
    try {
      const abort = new AbortController();
      await worker.listen();
      // The first pg-boss poll, made as the worker starts waiting, finds nothing and leaves no pending wake.
      await worker.waitForWork(abort.signal, 300);
      const woken = worker.waitForWork(abort.signal, 3_600_000).then(() => 'woken');
      await apiNode.publish('request-notify');
      assert.equal(await woken, 'woken');
      abort.abort();
    } finally {
      await Promise.all([apiNode.close(), worker.close()]);
    }
  });

  test('a greylisting recheck scheduled for an affinity wakes that worker when it is due', async () => {
    const seenBy = await openPgBossQueue(url, { poolSize: 2, affinity: 'worker-b', pollMs: 50 });
    const other = await openPgBossQueue(url, { poolSize: 2, affinity: 'worker-c' });
    try {
      await seenBy.listen();
      const abort = new AbortController();
      const woken = seenBy.waitForWork(abort.signal, 3_600_000).then(() => 'woken');
      await other.scheduleRecheck('worker-b', new Date(Date.now() + 300));
      assert.equal(await woken, 'woken');
      abort.abort();
    } finally {
      await Promise.all([seenBy.close(), other.close()]);
    }
  });
});

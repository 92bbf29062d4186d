/**
 * The engine's and the queue's shared state on PostgreSQL, seen from two processes' worth of
 * pools: per-MX session slots, domain facts, and LISTEN/NOTIFY wake-ups between an API node and
 * a worker. Skipped with a message when PostgreSQL is unreachable and PRESEND_TEST_POSTGRES is unset.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshDatabase } from '../backends.js';
import { openBackend } from '../../src/store/open-backend.js';
import { createPgSessionLimiter } from '../../src/store/postgres/limiter.js';
import { createPgFactsCache } from '../../src/store/postgres/facts-cache.js';
import { NotifyWakeUps } from '../../src/queue/postgres-notify.js';
import { silentLogger } from '../../src/logger.js';
import { until } from '../until.js';

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
  pool.on('error', () => undefined); // terminated by the DROP at the end
  return pool;
}

describe('shared engine state on PostgreSQL', { skip }, () => {
  before(async () => {
    const store = await openBackend(url); // makes sure the tables exist
    await store.close();
    pools = [testPool(4), testPool(4)];
  });

  test('two workers together never hold more session slots for one MX host than the limit', async () => {
    const limiters = pools.map((p) => createPgSessionLimiter(p, { log: silentLogger, maxPerHost: 3, leaseMs: 30_000 }));
    let active = 0;
    let peak = 0;
    const session = async (i: number) => {
      const release = await limiters[i % 2]!.acquire('mx.limit.example');
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 5)); // the session's length, kept: overlapping sessions are what the limit is about
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
    const dead = createPgSessionLimiter(deadPool, { log: silentLogger, maxPerHost: 1, leaseMs: 300 });
    await dead.acquire('mx.dead.example');
    await deadPool.end();
    const survivor = createPgSessionLimiter(pools[1]!, { log: silentLogger, maxPerHost: 1, leaseMs: 30_000 });
    const release = await survivor.acquire('mx.dead.example');
    assert.equal(survivor.held(), 1);
    await release();
    await Promise.all([survivor.close(), dead.close()]);
  });

  test('a waiting acquire gives up when its signal aborts', async () => {
    const limiter = createPgSessionLimiter(pools[0]!, { log: silentLogger, maxPerHost: 1, leaseMs: 30_000 });
    const release = await limiter.acquire('mx.abort.example');
    const abort = new AbortController();
    const waiting = limiter.acquire('mx.abort.example', abort.signal);
    abort.abort(new Error('stopped'));
    await assert.rejects(waiting, /stopped/);
    await release();
    await limiter.close();
  });

  test('a domain fact cached by one worker is seen by another until it expires', async () => {
    const [one, two] = pools.map((p) => createPgFactsCache(p, { log: silentLogger, localTtlMs: 0 }));
    await one!.set('mx:shared.example', { kind: 'hosts', hosts: [{ name: 'mx.shared.example', preference: 10 }], implicit: false }, 60_000);
    assert.deepEqual(await two!.get('mx:shared.example'), { kind: 'hosts', hosts: [{ name: 'mx.shared.example', preference: 10 }], implicit: false });
    await one!.set('catchall:short.example', true, 1);
    await until('the 1 ms fact expires for the other worker', async () => (await two!.get('catchall:short.example')) === undefined);
    assert.ok((await two!.purgeExpired()) >= 1);
  });

  test('a batch published on an API node wakes a worker waiting in another process at once, through NOTIFY', async () => {
    const wakeUps = (pool: pg.Pool) => new NotifyWakeUps({ databaseUrl: url, query: (sql, params) => pool.query(sql, params), log: silentLogger });
    const apiNode = wakeUps(pools[0]!);
    const worker = wakeUps(pools[1]!);
    try {
      const abort = new AbortController();
      await worker.listening();
      // A wait far beyond the test's own timeout ends only by the publish.
      const woken = worker.waitForWork(abort.signal, 3_600_000).then(() => 'woken');
      await apiNode.publish('request-1');
      assert.equal(await woken, 'woken');
      abort.abort();
    } finally {
      await Promise.all([apiNode.close(), worker.close()]);
    }
  });

  test('a worker whose LISTEN connection was cut listens again and is woken by the next publish', async () => {
    const worker = new NotifyWakeUps({ databaseUrl: url, query: (sql, params) => pools[1]!.query(sql, params), log: silentLogger, reconnectMs: 0 });
    const apiNode = new NotifyWakeUps({ databaseUrl: url, query: (sql, params) => pools[0]!.query(sql, params), log: silentLogger });
    try {
      await worker.listening();
      await pools[0]!.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'presend-wake' AND datname = current_database()");
      const abort = new AbortController();
      // Until the cut is noticed, an idle wait just polls; the wait after it opens a new connection.
      for (let i = 0; i < 100; i++) {
        await worker.waitForWork(abort.signal, 20);
        const ok = await worker.listening().then(
          () => true,
          () => false,
        );
        const live = await pools[0]!.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'presend-wake' AND datname = current_database()");
        if (ok && live.rows[0].n === 1) break;
      }
      const woken = worker.waitForWork(abort.signal, 3_600_000).then(() => 'woken');
      await apiNode.publish('request-2');
      assert.equal(await woken, 'woken');
      abort.abort();
    } finally {
      await Promise.all([apiNode.close(), worker.close()]);
    }
  });
});

/**
 * `presend worker` on PostgreSQL stops cleanly on SIGTERM: it hands its leased items back and
 * frees its MX session slots, so another worker finishes the batch at once, without waiting
 * for leases to expire, and every address still gets exactly one result.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import pg from 'pg';
import { benchWorld, startMailWorld } from '../../src/mailworld/index.js';
import type { MailWorld } from '../../src/mailworld/index.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { freshDatabase } from '../backends.js';
import { startWorker } from './presend-process.js';
import type { PresendProcess } from './presend-process.js';
import { until } from '../until.js';

const fresh = await freshDatabase();
const skip = fresh.kind === 'skip' ? fresh.reason : false;
const url = fresh.kind === 'ready' ? fresh.db.url : '';


describe('a worker stopped with SIGTERM on PostgreSQL', { skip, timeout: 90_000 }, () => {
  // Slow replies keep the worker in the middle of its chunks when the signal arrives.
  const bench = benchWorld({ domains: 12, mailboxesPerDomain: 50, commandLatencyMs: 40, greylistMs: 300, truth: { greylisted: 'final' } });
  let world: MailWorld;
  let store: Backend;
  let db: pg.Client;
  let env: Record<string, string> = {};
  const workers: PresendProcess[] = [];
  let accountId = '';
  let requestId = '';

  before(async () => {
    world = await startMailWorld(bench);
    store = await openBackend(url);
    db = new pg.Client({ connectionString: url });
    await db.connect();
    env = {
      ...world.env(),
      PRESEND_DATABASE_URL: url,
      PRESEND_RECHECK_DELAY_MS: '1000',
      PRESEND_WORKER_CONCURRENCY: '100',
      // Long leases: if the stopped worker did not hand its items back, the test would stall here.
      PRESEND_WORKER_LEASE_MS: '600000',
      PRESEND_MX_SLOT_LEASE_MS: '600000',
      PRESEND_WORKER_POLL_MS: '200',
      PRESEND_WORKER_AFFINITY_GRACE_MS: '1000',
      PRESEND_DATABASE_POOL_SIZE: '4',
      PRESEND_SHARED_POOL_SIZE: '2',
      PRESEND_LOG_LEVEL: 'warn',
    };
    const account = await store.accounts.createAccount({ name: 'shutdown', credits: 1_000, now: new Date() });
    assert.ok(account);
    accountId = account.id;
    const created = await store.batches.create({
      accountId,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: bench.addresses.length,
      items: bench.addresses.map((email) => ({ email, domain: email.slice(email.indexOf('@') + 1) })),
      billable: true,
      idempotency: { route: 'POST /v1/requests', key: 'shutdown', bodyHash: 'b', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
      now: new Date(),
      retentionDays: 30,
    });
    assert.equal(created.kind, 'created');
    requestId = created.kind === 'created' ? created.request.id : '';
  });

  after(async () => {
    await Promise.allSettled(workers.map((w) => w.kill()));
    await db?.end();
    await store?.close();
    await world?.close();
    if (fresh.kind === 'ready') await fresh.db.drop();
  });

  const count = async (sql: string) => (await db.query<{ n: number }>(sql)).rows[0]?.n ?? 0;

  test('hands its leased items back and frees its MX session slots before it exits', async () => {
    const first = await startWorker('worker-1', { ...env, PRESEND_WORKER_ID: 'worker-1' });
    workers.push(first);
    // Signal the worker at a moment it is mid-chunk: some results stored, some items still leased.
    // (Polling for "50 final" alone raced the worker between two chunks, when it holds nothing.)
    await until('the worker seen holding leased items after storing results', async () => {
      const final = await count("SELECT COUNT(*)::int AS n FROM items WHERE state = 'final'");
      const claimed = await count("SELECT COUNT(*)::int AS n FROM items WHERE state = 'claimed'");
      return final > 0 && claimed > 0;
    }, 30_000, 20);
    const exited = once(first.child, 'exit');
    first.child.kill('SIGTERM');
    const [code] = (await exited) as [number | null, NodeJS.Signals | null];
    assert.equal(code, 0);
    assert.equal(await count("SELECT COUNT(*)::int AS n FROM items WHERE state = 'claimed'"), 0);
    assert.equal(await count('SELECT COUNT(*)::int AS n FROM mx_session_slots'), 0);
    const view = await store.batches.get(accountId, requestId);
    assert.equal(view?.finalization, null, 'work was left for the next worker');
  });

  test('another worker then finishes the batch with exactly one result per address and every credit settled once', async () => {
    workers.push(await startWorker('worker-2', { ...env, PRESEND_WORKER_ID: 'worker-2' }));
    const view = await until('worker-2 completes the batch', async () => {
      const batch = await store.batches.get(accountId, requestId);
      return batch?.state === 'completed' ? batch : null;
    }, 60_000, 200);
    const emails: string[] = [];
    for (let after = 0; ; ) {
      const slice = await store.batches.resultsSlice({ accountId, requestId, afterSeq: after, limit: 500 });
      assert.ok(slice);
      if (slice.rows.length === 0) break;
      emails.push(...slice.rows.map((r) => r.email));
      after = slice.rows.at(-1)!.finalSeq;
    }
    assert.equal(emails.length, bench.addresses.length);
    assert.equal(new Set(emails).size, bench.addresses.length);
    const c = view.counters;
    assert.equal(c.creditsDebited + c.creditsReleased, bench.addresses.length);
    assert.deepEqual(await store.ledger.getBalance(accountId), { granted: 1_000, debited: c.creditsDebited, held: 0, available: 1_000 - c.creditsDebited });
  });
});

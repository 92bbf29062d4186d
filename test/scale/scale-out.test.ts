/**
 * Scale-out on PostgreSQL (docs/design.md §1): two `presend serve --no-worker` API nodes and two
 * `presend worker` processes on one fresh database, a batch of 5,000 mail-world addresses,
 * and one worker SIGKILLed in the middle. Requests are spread over both API nodes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { benchWorld, startMailWorld } from '../../src/mailworld/index.js';
import type { MailWorld } from '../../src/mailworld/index.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { freshDatabase } from '../backends.js';
import { startApiNode, startWorker } from './presend-process.js';
import type { PresendProcess } from './presend-process.js';
import { until } from '../until.js';

const fresh = await freshDatabase();
const skip = fresh.kind === 'skip' ? fresh.reason : false;
const MAX_SESSIONS_PER_MX = 2;

interface Counters {
  [key: string]: number;
}
interface BatchRequest {
  request: { id: string; state: string; finalized: boolean; finalization: { creditsDebited: number; creditsReleased: number; results: number } | null };
  counters: Counters;
  replayed?: boolean;
}
interface ResultItem {
  email: string;
  presend: { verdict: string | null; decision: string | null; billing: { disposition: string; credits: number } };
}
interface ResultsPage {
  results: ResultItem[];
  nextCursor: string | null;
  finalized: boolean;
}

const DECISION_KEYS: Record<string, string> = {
  send: 'send',
  suppress: 'suppress',
  send_with_caution: 'sendWithCaution',
  enrich_first: 'enrichFirst',
  recheck_later: 'recheckLater',
  manual_review: 'manualReview',
  do_not_decide: 'doNotDecide',
};

describe('scale-out: two API nodes and two workers on one PostgreSQL', { skip, timeout: 150_000 }, () => {
  const bench = benchWorld({ domains: 50, mailboxesPerDomain: 100, commandLatencyMs: 5, greylistMs: 300, truth: { greylisted: 'final' } });
  // 50 addresses twice: duplicates are counted, verified once.
  const submitted = [...bench.addresses, ...bench.addresses.slice(0, 50)];
  let world: MailWorld;
  let store: Backend;
  const nodes: Array<{ proc: PresendProcess; url: string }> = [];
  const workers: PresendProcess[] = [];
  let apiKey = '';
  let limitedKey = '';
  let accountId = '';
  let requestId = '';
  let calls = 0;
  /** Every call goes to the next API node in turn. */
  const nextNode = () => nodes[calls++ % nodes.length]!.url;

  const call = async <T>(path: string, init: { method?: string; body?: unknown; key?: string; idempotencyKey?: string; base?: string } = {}) => {
    const headers: Record<string, string> = { 'x-api-key': init.key ?? apiKey };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
    const response = await fetch(`${init.base ?? nextNode()}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  };

  before(async () => {
    if (fresh.kind !== 'ready') return;
    world = await startMailWorld(bench);
    const env: Record<string, string> = {
      ...world.env(),
      PRESEND_DATABASE_URL: fresh.db.url,
      PRESEND_RECHECK_DELAY_MS: '1000',
      PRESEND_MAX_SESSIONS_PER_MX: String(MAX_SESSIONS_PER_MX),
      PRESEND_SMTP_TIMEOUT_MS: '5000',
      PRESEND_RATE_LIMIT_PER_SECOND: '1000',
      PRESEND_RATE_LIMIT_BURST: '1000',
      // Short leases so a killed worker's items and MX slots come back within seconds.
      PRESEND_WORKER_LEASE_MS: '3000',
      PRESEND_WORKER_POLL_MS: '200',
      PRESEND_WORKER_AFFINITY_GRACE_MS: '3000',
      PRESEND_MX_SLOT_LEASE_MS: '2000',
      PRESEND_WORKER_CONCURRENCY: '500',
      // Four processes on one server: small pools.
      PRESEND_DATABASE_POOL_SIZE: '4',
      PRESEND_SHARED_POOL_SIZE: '2',
      PRESEND_LOG_LEVEL: 'warn',
    };
    // All four start on the empty database at once: migrations run under the advisory lock.
    const [api1, api2, w1, w2] = await Promise.allSettled([
      startApiNode('api-1', env),
      startApiNode('api-2', env),
      startWorker('worker-1', { ...env, PRESEND_WORKER_ID: 'worker-1' }),
      startWorker('worker-2', { ...env, PRESEND_WORKER_ID: 'worker-2' }),
    ]);
    // Whatever started is stopped by after(), even when another process failed to start.
    for (const n of [api1, api2]) if (n?.status === 'fulfilled') nodes.push(n.value);
    for (const w of [w1, w2]) if (w?.status === 'fulfilled') workers.push(w.value);
    const failed = [api1, api2, w1, w2].find((r) => r?.status === 'rejected');
    if (failed?.status === 'rejected') throw failed.reason;
    store = await openBackend(fresh.db.url);
    const account = await store.accounts.createAccount({ name: 'scale', credits: 6_000, now: new Date() });
    assert.ok(account);
    accountId = account.id;
    const key = generateApiKey('live');
    await store.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId, hash: key.hash, displayPrefix: key.displayPrefix, mode: 'live', now: new Date() });
    apiKey = key.key;
    const limited = await store.accounts.createAccount({ name: 'limited', credits: 0, now: new Date() });
    assert.ok(limited);
    await store.accounts.setAccountRateLimit(limited.id, 1, 5);
    const lk = generateApiKey('live');
    await store.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: limited.id, hash: lk.hash, displayPrefix: lk.displayPrefix, mode: 'live', now: new Date() });
    limitedKey = lk.key;
  });

  after(async () => {
    await Promise.allSettled([...nodes.map((n) => n.proc.stop()), ...workers.map((w) => w.stop())]);
    await store?.close();
    await world?.close();
    if (fresh.kind === 'ready') await fresh.db.drop();
  });

  test('identical batch submissions racing on both API nodes create one request and hold its credits once', async () => {
    const submissions = await Promise.all(
      [0, 1, 2, 3].map((i) => call<BatchRequest>('/v1/requests', { method: 'POST', body: { emails: submitted }, idempotencyKey: 'scale-batch-1', base: nodes[i % 2]!.url })),
    );
    assert.deepEqual(submissions.map((s) => s.status).sort(), [200, 200, 200, 202]);
    const ids = new Set(submissions.map((s) => s.body.request.id));
    assert.equal(ids.size, 1);
    requestId = [...ids][0]!;
    assert.equal(submissions.filter((s) => s.body.replayed === true).length, 3);
    const balance = await store.ledger.getBalance(accountId);
    assert.equal(balance.held + balance.debited, 5_000, 'one hold of one credit per unique address');
  });

  test('the batch finalizes after one of the two workers is SIGKILLed in the middle, with exactly one result per address', async () => {
    assert.ok(requestId);
    // Wait for real progress, then kill worker-1 while it holds leased items and MX slots.
    // (Progress alone raced the worker between two chunks, when it holds nothing: wait until
    // the store shows worker-1 holding leases, then kill it at once.)
    const probe = new pg.Client({ connectionString: fresh.kind === 'ready' ? fresh.db.url : '' });
    await probe.connect();
    const heldByWorker1 = "SELECT id FROM items WHERE state = 'claimed' AND claimed_by LIKE 'worker-1#%'";
    let stranded: number[] = [];
    try {
      await until('worker-1 seen holding leased items', async () => {
        const view = (await call<BatchRequest>(`/v1/requests/${requestId}`)).body;
        if (view.counters.completed! + view.counters.failed! < 500) return false;
        // Many leases, not a few: a handful at the tail of a claim can all finish in the
        // milliseconds between this query and the signal (seen in CI).
        const held = await probe.query<{ id: string }>(heldByWorker1);
        return held.rows.length >= 100;
      }, 60_000, 20);
      await workers[0]!.kill();
      // What the dead worker left leased is what the other worker must take over.
      stranded = (await probe.query<{ id: string }>(heldByWorker1)).rows.map((r) => Number(r.id));
    } finally {
      await probe.end();
    }
    assert.ok(stranded.length > 0, 'the killed worker left leased items behind');
    const atKill = (await call<BatchRequest>(`/v1/requests/${requestId}`)).body;
    assert.equal(atKill.request.finalized, false, 'the worker was killed before the batch was done');

    await until('the other worker finalizes the batch', async () => {
      const view = (await call<BatchRequest>(`/v1/requests/${requestId}`)).body;
      assert.notEqual(view.request.state, 'failed');
      return view.request.finalized;
    }, 120_000, 250);

    // Full cursor export, pages alternating between the two API nodes.
    const seen = new Map<string, ResultItem>();
    const cursors = new Set<string>();
    let cursor: string | null = null;
    for (;;) {
      const page: ResultsPage = (await call<ResultsPage>(`/v1/requests/${requestId}/results?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
      for (const item of page.results) {
        assert.equal(seen.has(item.email), false, `${item.email} exported twice`);
        seen.set(item.email, item);
      }
      if (page.nextCursor === null) {
        assert.equal(page.finalized, true);
        break;
      }
      assert.equal(cursors.has(page.nextCursor), false, 'a cursor repeated');
      cursors.add(page.nextCursor);
      cursor = page.nextCursor;
    }
    assert.equal(seen.size, bench.addresses.length);
    const wrong = bench.addresses.filter((a) => seen.get(a)?.presend.verdict !== bench.truth[a]);
    assert.deepEqual(wrong.slice(0, 5).map((a) => `${a}: ${seen.get(a)?.presend.verdict} ≠ ${bench.truth[a]}`), []);

    // Every item the crash left leased was claimed again by the other worker and is final.
    const client = new pg.Client({ connectionString: fresh.kind === 'ready' ? fresh.db.url : '' });
    await client.connect();
    const taken = await client.query<{ id: string; state: string; claimed_again: boolean }>(
      'SELECT id, state, attempts > rechecks + 1 AS claimed_again FROM items WHERE id = ANY($1::bigint[])',
      [stranded],
    );
    await client.end();
    assert.equal(taken.rows.length, stranded.length);
    assert.deepEqual(
      taken.rows.filter((r) => r.state !== 'final' || !r.claimed_again).map((r) => r.id),
      [],
      'items leased by the killed worker were claimed again and finished',
    );
  });

  test('the counters equal the exported results, and every held credit was debited or released exactly once', async () => {
    const view = (await call<BatchRequest>(`/v1/requests/${requestId}`)).body;
    const c = view.counters;
    assert.deepEqual([c.total, c.unique, c.duplicates, c.pending, c.rechecking], [5_050, 5_000, 50, 0, 0]);
    assert.equal(c.completed! + c.failed!, 5_000);

    const decisions: Counters = {};
    let debited = 0;
    let released = 0;
    let cursor: string | null = null;
    do {
      const page: ResultsPage = (await call<ResultsPage>(`/v1/requests/${requestId}/results?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
      for (const item of page.results) {
        const key = DECISION_KEYS[item.presend.decision ?? ''];
        if (key) decisions[key] = (decisions[key] ?? 0) + 1;
        if (item.presend.billing.disposition === 'debited') debited += item.presend.billing.credits;
        if (item.presend.billing.disposition === 'released') released += 1;
      }
      cursor = page.nextCursor;
    } while (cursor);
    for (const key of Object.values(DECISION_KEYS)) assert.equal(c[key], decisions[key] ?? 0, `counter ${key}`);
    assert.deepEqual([c.creditsHeld, c.creditsDebited, c.creditsReleased], [0, debited, released]);
    assert.equal(debited + released, 5_000, 'debited + released = the 5,000 credits held at creation');
    assert.deepEqual(
      [view.request.finalization?.creditsDebited, view.request.finalization?.creditsReleased, view.request.finalization?.results],
      [debited, released, 5_000],
    );
    assert.deepEqual(await store.ledger.getBalance(accountId), { granted: 6_000, debited, held: 0, available: 6_000 - debited });
  });

  test('no MX host saw more concurrent sessions than the per-MX limit, summed over both workers', () => {
    const peaks = bench.hosts.map((h) => world.recorder.maxConcurrent(h.name));
    assert.ok(peaks.every((p) => p >= 1), 'every host was probed');
    assert.ok(Math.max(...peaks) <= MAX_SESSIONS_PER_MX, `peak sessions per host: ${Math.max(...peaks)}`);
  });

  test("a key's rate limit holds over requests spread across both API nodes", async () => {
    const started = Date.now();
    const statuses = await Promise.all(
      // POSTs: the work bucket the account's override limits (GETs draw from the larger reads bucket).
      // The account has no credits, so an allowed call is a 402, a limited one a 429.
      Array.from({ length: 16 }, (_, i) =>
        call('/v1/requests', { method: 'POST', body: { emails: [`limit${i}@example.com`] }, idempotencyKey: `limit-${i}`, key: limitedKey, base: nodes[i % 2]!.url }),
      ),
    );
    const elapsedSeconds = (Date.now() - started) / 1000;
    const allowed = statuses.filter((s) => s.status !== 429).length;
    // Burst 5, refilled at 1 per second while the calls were in flight.
    assert.ok(allowed >= 5 && allowed <= 5 + Math.ceil(elapsedSeconds), `allowed ${allowed} of 16 in ${elapsedSeconds} s`);
    assert.ok(statuses.some((s, i) => s.status === 429 && i % 2 === 0) || statuses.some((s, i) => s.status === 429 && i % 2 === 1));
  });
});

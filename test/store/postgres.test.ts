/**
 * The PostgreSQL store under concurrency: the shared contract suite, then several store
 * instances (separate pools, as separate nodes would have) racing on one fresh database.
 * Skipped with a message when PostgreSQL is unreachable and PRESEND_TEST_POSTGRES is unset.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshDatabase } from '../backends.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { IdempotencyClaim } from '../../src/store/roles/idempotency.js';
import type { StoredResult } from '../../src/store/stored-result.js';
import type { Backend } from '../../src/store/backend.js';
import { listMigrations } from '../../src/store/migrations.js';
import { runStoreContract } from './contract.js';
import type { ItemGroup } from '../../src/store/billing-rules.js';

const fresh = await freshDatabase();
const skip = fresh.kind === 'skip' ? fresh.reason : false;
const url = fresh.kind === 'ready' ? fresh.db.url : '';

after(async () => {
  if (fresh.kind === 'ready') await fresh.db.drop();
});

function claim(key: string, bodyHash = 'body'): IdempotencyClaim {
  return { route: 'POST /v1/requests', key, bodyHash, expiresAt: new Date(Date.now() + 86_400_000).toISOString() };
}

function deliverable(now: Date): StoredResult {
  return {
    envelope: {
      contract_version: 1,
      status: 'completed',
      outcome: 'actionable_verdict',
      decision: 'send',
      verdict: 'DELIVERABLE',
      provider_family: 'other',
      confidence: 0.97,
      reasons: ['smtp_rcpt_accepted'],
      evidence_class: 'smtp_rcpt',
      retry: null,
      billing: { disposition: 'debited', credits: 1 },
      history: null,
    },
    legacy: { result: 'deliverable', reason: 'smtp_rcpt_accepted', didYouMean: null },
    score: 97,
    checkedAt: now.toISOString(),
    attempts: 1,
    providerFamily: 'other',
  };
}

const emails = (n: number, domains: number) =>
  Array.from({ length: n }, (_, i) => ({ email: `user${i}@d${i % domains}.example`, domain: `d${i % domains}.example` }));

// The shared contract suite on its own fresh database: its fixed 2030 clock must not meet the
// leases of the tests below.
const own = skip ? null : await freshDatabase();
if (own?.kind === 'ready') {
  runStoreContract('postgres', () => openBackend(own.db.url), {
    async countItems(requestId) {
      const client = new pg.Client({ connectionString: own.db.url });
      await client.connect();
      try {
        const { rows } = await client.query<ItemGroup>(
          'SELECT state, envelope_status AS "envelopeStatus", decision, billing, COUNT(*)::int AS count FROM items WHERE request_id = $1 GROUP BY 1, 2, 3, 4',
          [requestId],
        );
        return rows;
      } finally {
        await client.end();
      }
    },
  });
  after(() => own.db.drop());
}

describe('PostgreSQL store with several nodes on one database', { skip }, () => {
  let nodes: Backend[] = [];
  let accountSeq = 0;
  const account = async (credits: number) => {
    const a = await nodes[0]!.accounts.createAccount({ name: `acct-${++accountSeq}`, credits, now: new Date() });
    assert.ok(a);
    return a;
  };

  before(async () => {
    // Four nodes starting at once: the advisory lock lets exactly one apply the migrations.
    nodes = await Promise.all([1, 2, 3, 4].map(() => openBackend(url)));
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.close()));
  });

  test('nodes migrating at the same moment apply every migration exactly once', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    await client.end();
    assert.deepEqual(
      rows.map((r) => r.version),
      listMigrations('postgres').map((m) => m.version),
    );
    await Promise.all(nodes.map((n) => n.migrate()));
  });

  test('identical batch requests racing on four nodes create exactly one request and hold its credits once', async () => {
    const a = await account(100);
    const input = { accountId: a.id, keyId: 'k', mode: 'emails' as const, listId: null, total: 3, items: emails(3, 2), billable: true, now: new Date(), retentionDays: 30 };
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => nodes[i % 4]!.batches.create({ ...input, idempotency: claim('race') })));
    const created = outcomes.filter((o) => o.kind === 'created');
    assert.equal(created.length, 1);
    const ids = new Set(outcomes.map((o) => ('request' in o ? o.request.id : 'none')));
    assert.equal(ids.size, 1);
    assert.deepEqual(await nodes[1]!.ledger.getBalance(a.id), { granted: 100, debited: 0, held: 3, available: 97 });
  });

  test('the same Idempotency-Key with a different body is refused while the first is replayed', async () => {
    const a = await account(10);
    const input = { accountId: a.id, keyId: 'k', mode: 'emails' as const, listId: null, total: 1, items: emails(1, 1), billable: true, now: new Date(), retentionDays: 30 };
    const [first, second] = await Promise.all([
      nodes[0]!.batches.create({ ...input, idempotency: claim('k2', 'one') }),
      nodes[1]!.batches.create({ ...input, idempotency: claim('k2', 'two') }),
    ]);
    assert.deepEqual([first.kind, second.kind].sort(), ['created', 'idempotency_mismatch']);
  });

  test('concurrent credit holds on several nodes never overdraw the balance', async () => {
    const a = await account(5);
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        nodes[i % 4]!.batches.create({
          accountId: a.id,
          keyId: 'k',
          mode: 'emails',
          listId: null,
          total: 1,
          items: emails(1, 1),
          billable: true,
          idempotency: claim(`hold-${i}`),
          now: new Date(),
          retentionDays: 30,
        }),
      ),
    );
    assert.equal(outcomes.filter((o) => o.kind === 'created').length, 5);
    assert.equal(outcomes.filter((o) => o.kind === 'insufficient_credits').length, 7);
    const verifies = await Promise.all(
      [0, 1, 2].map((i) =>
        nodes[i]!.verifications.start({ accountId: a.id, keyId: 'k', email: 'x@y.example', billable: true, idempotency: { ...claim(`v-${i}`), route: 'POST /v1/verify' }, now: new Date(), lease: { owner: 'test#1', until: new Date(Date.now() + 60_000) } }),
      ),
    );
    assert.deepEqual(
      verifies.map((v) => v.kind),
      ['insufficient_credits', 'insufficient_credits', 'insufficient_credits'],
    );
    assert.deepEqual(await nodes[2]!.ledger.getBalance(a.id), { granted: 5, debited: 0, held: 5, available: 0 });
  });

  test('workers claiming at once never receive the same item, and each chunk comes grouped by domain', async () => {
    const a = await account(1000);
    const created = await nodes[0]!.batches.create({
      accountId: a.id,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: 400,
      items: emails(400, 8),
      billable: true,
      idempotency: claim('claims'),
      now: new Date(),
      retentionDays: 30,
    });
    assert.equal(created.kind, 'created');
    const requestId = created.kind === 'created' ? created.request.id : '';
    const seen = new Map<number, string>();
    // Concurrent claims take whole domains apart from each other, so a chunk may stop short of
    // its limit at a domain boundary: claim until nothing of this request is left.
    let mine = 0;
    for (let round = 0; round < 40 && mine < 400; round++) {
      const chunks = await Promise.all(
        [0, 1, 2, 3].map((w) => nodes[w]!.work.claim({ owner: `w${w}`, affinity: `w${w}`, now: new Date(), leaseMs: 60_000, limit: 20, affinityGraceMs: 60_000 })),
      );
      chunks.forEach((chunk, w) => {
        for (const item of chunk) {
          assert.equal(seen.has(item.itemId), false, `item ${item.itemId} claimed twice`);
          seen.set(item.itemId, `w${w}`);
          if (item.requestId === requestId) mine++;
        }
        // Grouped by domain: the items of one domain of one request come together. (Items of
        // older requests left open by earlier tests come first, so no count of domains here.)
        assert.ok(chunk.length <= 20);
        const runs = chunk.map((i) => `${i.requestId} ${i.domain}`).filter((key, at, all) => at === 0 || all[at - 1] !== key);
        assert.equal(new Set(runs).size, runs.length, `a domain split within one chunk: ${runs.join(', ')}`);
      });
    }
    assert.equal(mine, 400);
    const view = await nodes[3]!.batches.get(a.id, created.kind === 'created' ? created.request.id : '');
    assert.equal(view?.state, 'running');
  });

  test('an expired lease is taken over, and a result recorded by both the slow and the new worker is billed once', async () => {
    const a = await account(10);
    const created = await nodes[0]!.batches.create({
      accountId: a.id,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: 1,
      items: [{ email: 'solo@lease.example', domain: 'lease.example' }],
      billable: true,
      idempotency: claim('lease'),
      now: new Date(),
      retentionDays: 30,
    });
    assert.equal(created.kind, 'created');
    const t0 = new Date();
    const first = await nodes[0]!.work.claim({ owner: 'slow', affinity: 'slow', now: t0, leaseMs: 1_000, limit: 10, affinityGraceMs: 0 });
    const mine = first.filter((i) => i.email === 'solo@lease.example');
    assert.equal(mine.length, 1);
    const later = new Date(t0.getTime() + 5_000);
    const second = await nodes[1]!.work.claim({ owner: 'fresh', affinity: 'fresh', now: later, leaseMs: 60_000, limit: 10, affinityGraceMs: 0 });
    const taken = second.find((i) => i.itemId === mine[0]!.itemId);
    assert.ok(taken, 'the expired item is handed to the next worker');
    assert.equal(taken.attempts, 1);
    const results = await Promise.all(
      [nodes[0]!, nodes[1]!, nodes[2]!].map((n) => n.batches.recordItemResult({ kind: 'final', itemId: taken.itemId, result: deliverable(later), now: later, retentionDays: 30 })),
    );
    assert.equal(results.filter((r) => r.recorded).length, 1);
    assert.equal(results.filter((r) => r.finalizedRequest).length, 1);
    assert.deepEqual(await nodes[3]!.ledger.getBalance(a.id), { granted: 10, debited: 1, held: 0, available: 9 });
    const slice = await nodes[2]!.batches.resultsSlice({ accountId: a.id, requestId: taken.requestId, afterSeq: 0, limit: 10 });
    assert.equal(slice?.rows.length, 1);
    assert.equal(slice?.request.state, 'completed');
    assert.equal(slice?.request.counters.creditsDebited, 1);
  });

  test('results written together come back exactly as handed in, whatever characters the server replied with', async () => {
    const a = await account(10);
    const replies = ['plain', 'a "quoted" reply \\ with a backslash', 'unicode é 😀 \u2028', 'nul \u0000 byte', 'lone surrogate \ud800 here'];
    const created = await nodes[0]!.batches.create({
      accountId: a.id,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: replies.length,
      items: replies.map((_, i) => ({ email: `odd${i}@chars.example`, domain: 'chars.example' })),
      billable: true,
      idempotency: claim('odd-characters'),
      now: new Date(),
      retentionDays: 30,
    });
    assert.equal(created.kind, 'created');
    const requestId = created.kind === 'created' ? created.request.id : '';
    const claimed = (await nodes[1]!.work.claim({ owner: 'odd', affinity: 'odd', now: new Date(), leaseMs: 60_000, limit: 100, affinityGraceMs: 60_000 })).filter(
      (i) => i.requestId === requestId,
    );
    assert.equal(claimed.length, replies.length);
    const now = new Date();
    const resultFor = (email: string): StoredResult => {
      const base = deliverable(now);
      return { ...base, legacy: { ...base.legacy, reason: replies[Number(/odd(\d+)@/.exec(email)?.[1])] ?? '' } };
    };
    // All at once on one node: they are gathered into shared writes (one bad one falls back to one by one).
    const outcomes = await Promise.all(claimed.map((i) => nodes[1]!.batches.recordItemResult({ kind: 'final', itemId: i.itemId, result: resultFor(i.email), now, retentionDays: 30 })));
    assert.equal(outcomes.filter((o) => o.recorded).length, replies.length);
    const slice = await nodes[2]!.batches.resultsSlice({ accountId: a.id, requestId, afterSeq: 0, limit: 100 });
    assert.equal(slice?.rows.length, replies.length);
    for (const row of slice?.rows ?? []) {
      const { email, finalSeq, ...stored } = row;
      assert.ok(finalSeq > 0);
      assert.deepEqual(stored, JSON.parse(JSON.stringify(resultFor(email ?? ''))));
    }
  });

  test('results recorded concurrently share transactions yet keep one result per item, contiguous sequence numbers and one finalization', async () => {
    const a = await account(100);
    const addresses = emails(40, 4);
    const make = async (key: string) => {
      const created = await nodes[0]!.batches.create({
        accountId: a.id,
        keyId: 'k',
        mode: 'emails',
        listId: null,
        total: addresses.length,
        items: addresses,
        billable: true,
        idempotency: claim(key),
        now: new Date(),
        retentionDays: 30,
      });
      assert.equal(created.kind, 'created');
      return created.kind === 'created' ? created.request.id : '';
    };
    // Two requests with the same addresses: each address is checked twice by one account.
    const requests = [await make('many-1'), await make('many-2')];
    const claimed = (
      await nodes[1]!.work.claim({ owner: 'many', affinity: 'many', now: new Date(), leaseMs: 3_600_000, limit: 1000, affinityGraceMs: 3_600_000 })
    ).filter((i) => requests.includes(i.requestId));
    assert.equal(claimed.length, 80);
    const now = new Date();
    // Every item twice, all at once, on one node: duplicates land in the same gathered write.
    const outcomes = await Promise.all(
      [...claimed, ...claimed].map((i) => nodes[1]!.batches.recordItemResult({ kind: 'final', itemId: i.itemId, result: deliverable(now), now, retentionDays: 30 })),
    );
    assert.equal(outcomes.filter((o) => o.recorded).length, 80);
    assert.equal(outcomes.filter((o) => o.finalizedRequest).length, 2);
    for (const requestId of requests) {
      const slice = await nodes[2]!.batches.resultsSlice({ accountId: a.id, requestId, afterSeq: 0, limit: 200 });
      assert.deepEqual(
        slice?.rows.map((r) => r.finalSeq),
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      assert.equal(slice?.request.state, 'completed');
      assert.equal(slice?.request.finalization?.creditsDebited, 40);
    }
    assert.deepEqual(await nodes[3]!.ledger.getBalance(a.id), { granted: 100, debited: 80, held: 0, available: 20 });
    const verification = await nodes[0]!.verifications.start({
      accountId: a.id,
      keyId: 'k',
      lease: { owner: 'test#1', until: new Date(Date.now() + 60_000) },
      email: addresses[0]!.email,
      billable: false,
      idempotency: { ...claim('history'), route: 'POST /v1/verify' },
      now,
    });
    assert.equal(verification.kind, 'created');
    const done = await nodes[0]!.verifications.complete({ verificationId: verification.kind === 'created' ? verification.verification.id : '', result: deliverable(now), now });
    assert.equal(done.result?.envelope.history?.checks, 2, 'both batch checks of the address are in its history');
  });

  test('a greylisted item returns to the worker that saw it, and to anyone once the grace period is over', async () => {
    const a = await account(10);
    await nodes[0]!.batches.create({
      accountId: a.id,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: 1,
      items: [{ email: 'grey@grey.example', domain: 'grey.example' }],
      billable: true,
      idempotency: claim('grey'),
      now: new Date(),
      retentionDays: 30,
    });
    // Other tests' items are all claimed or final by now; drain anything pending first.
    const t0 = new Date();
    const drained = await nodes[0]!.work.claim({ owner: 'A#1', affinity: 'A', now: t0, leaseMs: 3_600_000, limit: 1000, affinityGraceMs: 3_600_000 });
    const grey = drained.find((i) => i.email === 'grey@grey.example');
    assert.ok(grey);
    const due = new Date(t0.getTime() + 1_000);
    await nodes[0]!.batches.recordItemResult({ kind: 'recheck', itemId: grey.itemId, affinity: 'A', recheckAt: due, now: t0 });
    const at = (ms: number) => new Date(due.getTime() + ms);
    const claimAs = (node: number, affinity: string, now: Date) =>
      nodes[node]!.work.claim({ owner: `${affinity}#${node}`, affinity, now, leaseMs: 3_600_000, limit: 10, affinityGraceMs: 10_000 });
    assert.equal((await claimAs(1, 'B', at(1_000))).some((i) => i.itemId === grey.itemId), false);
    const back = await claimAs(2, 'A', at(1_000));
    assert.equal(back.find((i) => i.itemId === grey.itemId)?.rechecks, 1);
    await nodes[2]!.leases.release('item', 'A#2', [grey.itemId], new Date());
    assert.equal((await claimAs(3, 'B', at(11_000))).some((i) => i.itemId === grey.itemId), true);
  });

  test('rate-limit buckets are shared: requests spread over two nodes together get one burst', async () => {
    const now = new Date();
    const decisions = await Promise.all(
      Array.from({ length: 30 }, (_, i) => nodes[i % 2]!.rateLimits.consumeToken({ keyId: 'shared-key', now, perSecond: 1, burst: 10 })),
    );
    assert.equal(decisions.filter((d) => d.allowed).length, 10);
    const refused = decisions.find((d) => !d.allowed);
    assert.ok(refused && refused.retryAfterMs > 0);
  });
});

describe('PostgreSQL claims take whole domains', { skip }, () => {
  let store: Backend;
  let db: pg.Client;
  let drop: (() => Promise<void>) | null = null;

  before(async () => {
    const own = await freshDatabase();
    if (own.kind !== 'ready') throw new Error('no database');
    drop = () => own.db.drop();
    store = await openBackend(own.db.url);
    db = new pg.Client({ connectionString: own.db.url });
    await db.connect();
  });

  after(async () => {
    await db.end();
    await store.close();
    await drop?.();
  });

  test('a claim stops before a domain that does not fit (unless most of its room would stay empty), and skips a domain another claim is taking', async () => {
    const a = await store.accounts.createAccount({ name: 'whole-domains', credits: 100, now: new Date() });
    assert.ok(a);
    const items = ['a', 'b', 'c', 'd'].flatMap((d) => Array.from({ length: 10 }, (_, i) => ({ email: `u${i}@${d}.example`, domain: `${d}.example` })));
    const created = await store.batches.create({
      accountId: a.id,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: items.length,
      items,
      billable: true,
      idempotency: claim('whole-domains'),
      now: new Date(),
      retentionDays: 30,
    });
    assert.equal(created.kind, 'created');
    const requestId = created.kind === 'created' ? created.request.id : '';
    const claimOf = async (limit: number) =>
      (await store.work.claim({ owner: 'w', affinity: 'w', now: new Date(), leaseMs: 60_000, limit, affinityGraceMs: 60_000 })).map((i) => i.domain);
    // 25 fit a.example and b.example whole; c.example would be split, so it waits for the next claim.
    assert.deepEqual(await claimOf(25), [...Array(10).fill('a.example'), ...Array(10).fill('b.example')]);
    // Another claim (another worker) is taking c.example right now: this one takes d.example.
    await db.query('BEGIN');
    await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [0x70636c6d, `${requestId}\nc.example`]);
    assert.deepEqual(await claimOf(25), Array(10).fill('d.example'));
    await db.query('ROLLBACK');
    // A domain larger than the whole chunk is split rather than left waiting.
    assert.deepEqual(await claimOf(4), Array(4).fill('c.example'));
    assert.deepEqual(await claimOf(6), Array(6).fill('c.example'));
    // Domains a little larger than a claim: the claim after a split takes the remainder and splits
    // the next domain too, instead of leaving most of its room empty.
    const larger = ['e', 'f'].flatMap((d) => Array.from({ length: 11 }, (_, i) => ({ email: `u${i}@${d}.example`, domain: `${d}.example` })));
    const second = await store.batches.create({
      accountId: a.id,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: larger.length,
      items: larger,
      billable: true,
      idempotency: claim('whole-domains-2'),
      now: new Date(),
      retentionDays: 30,
    });
    assert.equal(second.kind, 'created');
    assert.deepEqual(await claimOf(10), Array(10).fill('e.example'));
    assert.deepEqual(await claimOf(10), ['e.example', ...Array(9).fill('f.example')]);
  });
});

/**
 * The store contract suite (src/store/backend.ts, the roles of src/store/roles/): every Backend
 * implementation runs it (test/store/sqlite.test.ts, test/store/postgres.test.ts), the
 * dashboard's roles included (dashboard-roles.ts). A behaviour that differs between SQLite and
 * PostgreSQL is a bug in one of them.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSandboxEngine } from '../../src/core/index.js';
import { toStoredResult } from '../../src/store/stored-result.js';
import type { CreateBatchInput } from '../../src/store/roles/batches/batch-records.js';
import type { StoredResult } from '../../src/store/stored-result.js';
import type { Backend } from '../../src/store/backend.js';
import type { Evidence } from '../../src/core/evidence/evidence.js';
import { countersFrom } from '../../src/store/billing-rules.js';
import { failedResult } from '../../src/service/checks/envelopes.js';
import type { ItemGroup } from '../../src/store/billing-rules.js';
import { dashboardRoleCases } from './dashboard-roles.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
/** A lease far beyond every test's clock: no check here is abandoned unless a test says so. */
const LEASE = at(86_400_000);
const sandbox = createSandboxEngine();

async function result(email: string): Promise<StoredResult> {
  return toStoredResult(await sandbox.verify(email));
}

let n = 0;
const unique = (p: string) => `${p}-${process.pid}-${Date.now()}-${++n}`;

export interface ContractOptions {
  /** The request's items counted straight from the database (GROUP BY state, envelope_status, decision, billing): the truth counters are checked against. */
  countItems?(requestId: string): Promise<ItemGroup[]>;
}

export function runStoreContract(name: string, makeStore: () => Promise<Backend>, options: ContractOptions = {}): void {
  describe(`store contract: ${name}`, () => {
    let store: Backend;
    before(async () => {
      store = await makeStore();
      await store.migrate(); // twice is harmless
    });
    after(async () => store.close());

    async function account(credits: number) {
      const a = await store.accounts.createAccount({ name: unique('acct'), credits, now: T0 });
      assert.ok(a);
      const key = await store.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: a.id, hash: unique('hash'), displayPrefix: unique('ps_live.x'), mode: 'live', now: T0 });
      return { id: a.id, keyId: key.id, name: a.name };
    }

    const idem = (key: string, bodyHash = 'h1') => ({ route: 'POST /v1/requests', key, bodyHash, expiresAt: at(86_400_000).toISOString() });

    function batch(a: { id: string; keyId: string }, emails: string[], extra: Partial<CreateBatchInput> = {}): CreateBatchInput {
      return {
        accountId: a.id,
        keyId: a.keyId,
        mode: 'emails',
        listId: null,
        total: emails.length,
        items: emails.map((email) => ({ email, domain: email.split('@')[1] ?? '' })),
        billable: true,
        idempotency: idem(unique('k')),
        now: T0,
        retentionDays: 30,
        ...extra,
      };
    }

    /** Claims everything open and stores the sandbox's result for each item. */
    async function drain(owner = 'w#1', now = at(1000)) {
      for (;;) {
        const items = await store.work.claim({ owner, affinity: 'w', now, leaseMs: 60_000, limit: 50, affinityGraceMs: 60_000 });
        if (items.length === 0) return;
        for (const i of items) await store.batches.recordItemResult({ kind: 'final', itemId: i.itemId, result: await result(i.email), now, retentionDays: 30 });
      }
    }

    test('an account name is unique and an initial grant is its balance', async () => {
      const name = unique('acme');
      const a = await store.accounts.createAccount({ name, credits: 7, now: T0 });
      assert.ok(a);
      assert.equal(await store.accounts.createAccount({ name, credits: 1, now: T0 }), null);
      assert.equal((await store.accounts.findAccountByName(name))?.id, a.id);
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 7, debited: 0, held: 0, available: 7 });
      assert.equal((await store.ledger.grantCredits(a.id, 3, T0)).available, 10);
    });

    test('a key is found by its hash until it is revoked', async () => {
      const a = await account(0);
      const hash = unique('h');
      const prefix = `ps_test.${unique('p').replace(/[^A-Za-z0-9]/g, '')}`;
      const key = await store.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: a.id, hash, displayPrefix: prefix, mode: 'test', now: T0 });
      const found = await store.accounts.findActiveKey(hash);
      assert.equal(found?.accountId, a.id);
      assert.equal(found?.mode, 'test');
      assert.equal((await store.keyManagement.listKeys(a.id)).length, 2);
      assert.equal((await store.keyManagement.revokeKey({ accountId: a.id, keyId: key.id, actor: { name: 'test' }, now: at(1) }))?.revokedAt, at(1).toISOString());
      assert.equal(await store.accounts.findActiveKey(hash), null);
      assert.ok((await store.keyManagement.listKeys(a.id)).some((k) => k.id === key.id && k.revokedAt !== null));
    });

    test('an account-level rate limit overrides the default for its keys', async () => {
      const a = await account(0);
      const hash = unique('rl');
      await store.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: a.id, hash, displayPrefix: 'ps_live.rl', mode: 'live', now: T0 });
      assert.deepEqual([(await store.accounts.findActiveKey(hash))?.rateLimitPerSecond, (await store.accounts.findActiveKey(hash))?.rateLimitBurst], [null, null]);
      await store.accounts.setAccountRateLimit(a.id, 5, 9);
      const key = await store.accounts.findActiveKey(hash);
      assert.deepEqual([key?.rateLimitPerSecond, key?.rateLimitBurst], [5, 9]);
    });

    test('the token bucket allows a burst, refuses with a retry delay, and refills with time', async () => {
      const keyId = unique('key');
      const take = (ms: number) => store.rateLimits.consumeToken({ keyId, now: at(ms), perSecond: 2, burst: 3 });
      assert.equal((await take(0)).allowed, true);
      assert.equal((await take(0)).allowed, true);
      const third = await take(0);
      assert.equal(third.allowed, true);
      assert.equal(third.remaining, 0);
      const refused = await take(0);
      assert.equal(refused.allowed, false);
      assert.equal(refused.retryAfterMs, 500);
      assert.equal((await take(500)).allowed, true);
    });

    test('a list is importing until finished, keeps its order, and is invisible to other accounts', async () => {
      const a = await account(0);
      const b = await account(0);
      const list = await store.lists.createList({ accountId: a.id, name: 'q3', now: T0 });
      assert.equal(list.state, 'importing');
      await store.lists.appendListEntries(list.id, ['x@a.test', 'y@a.test']);
      await store.lists.appendListEntries(list.id, ['z@a.test']);
      const ready = await store.lists.finishListImport(list.id, 'ready');
      assert.deepEqual([ready.state, ready.entries], ['ready', 3]);
      assert.deepEqual((await store.lists.readListSlice(list.id, 0, 1_000)).map((e) => e.email), ['x@a.test', 'y@a.test', 'z@a.test']);
      assert.equal(await store.lists.getList(b.id, list.id), null);
      assert.equal((await store.lists.getList(a.id, list.id))?.name, 'q3');
    });

    test('a verification holds one credit, debits it once for a verdict, and fills history from earlier checks', async () => {
      const a = await account(1);
      const claim = { route: 'POST /v1/verify', key: unique('v'), bodyHash: 'b', expiresAt: at(86_400_000).toISOString() };
      const started = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'deliverable@h.test', billable: true, idempotency: claim, now: T0 });
      assert.equal(started.kind, 'created');
      if (started.kind !== 'created') return;
      assert.equal((await store.ledger.getBalance(a.id)).held, 1);
      const short = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'x@h.test', billable: true, idempotency: { ...claim, key: unique('v') }, now: T0 });
      assert.equal(short.kind, 'insufficient_credits');
      const replay = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'deliverable@h.test', billable: true, idempotency: claim, now: T0 });
      assert.equal(replay.kind, 'replay');
      assert.equal(replay.kind === 'replay' && replay.verification.id, started.verification.id);
      const other = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'x@h.test', billable: true, idempotency: { ...claim, bodyHash: 'c' }, now: T0 });
      assert.equal(other.kind, 'idempotency_mismatch');
      const r = await result('deliverable@h.test');
      const done = await store.verifications.complete({ verificationId: started.verification.id, result: r, now: at(1) });
      assert.deepEqual(done.result?.envelope.billing, { disposition: 'debited', credits: 1 });
      assert.equal(done.result?.envelope.history, null);
      await store.verifications.complete({ verificationId: started.verification.id, result: r, now: at(2) });
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 1, debited: 1, held: 0, available: 0 });
      const free = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'deliverable@h.test', billable: false, idempotency: { ...claim, key: unique('v') }, now: at(3) });
      assert.equal(free.kind, 'created');
      if (free.kind !== 'created') return;
      const second = await store.verifications.complete({ verificationId: free.verification.id, result: r, now: at(4) });
      assert.equal(second.result?.envelope.history?.checks, 1);
      assert.equal(second.result?.envelope.history?.lastVerdict, 'DELIVERABLE');
      assert.deepEqual(second.result?.envelope.billing, { disposition: 'released', credits: 0 });
      assert.equal((await store.verifications.get(a.id, free.verification.id))?.state, 'completed');
    });

    test('a result known at creation is stored by the creating write: completed, billed once, in history, replayed as is', async () => {
      const a = await account(2);
      const claim = { route: 'POST /v1/verify', key: unique('v'), bodyHash: 'b', expiresAt: at(86_400_000).toISOString() };
      const r = await result('deliverable@h.test');
      const input = { accountId: a.id, keyId: a.keyId, email: 'deliverable@h.test', billable: true, idempotency: claim, now: T0, lease: { owner: 'test#1', until: LEASE }, result: r };
      const started = await store.verifications.start(input);
      assert.equal(started.kind, 'created');
      if (started.kind !== 'created') return;
      assert.equal(started.verification.state, 'completed');
      assert.deepEqual(started.verification.result?.envelope.billing, { disposition: 'debited', credits: 1 });
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 2, debited: 1, held: 0, available: 1 });
      const replay = await store.verifications.start({ ...input, now: at(1) });
      assert.equal(replay.kind === 'replay' && replay.verification.id, started.verification.id);
      assert.equal((await store.ledger.getBalance(a.id)).debited, 1, 'a replay bills nothing');
      const again = await store.verifications.start({ ...input, idempotency: { ...claim, key: unique('v') }, now: at(2) });
      assert.equal(again.kind === 'created' && again.verification.result?.envelope.history?.checks, 1);
    });

    test('a running check whose lease lapsed is taken over once, renewed leases are not, finished checks never; one never answered 202 is released', async () => {
      const a = await account(4);
      const start = async (email: string, lease: Date) => {
        const claim = { route: 'POST /v1/verify', key: unique('v'), bodyHash: 'b', expiresAt: at(86_400_000).toISOString() };
        const s = await store.verifications.start({ accountId: a.id, keyId: a.keyId, email, billable: true, idempotency: claim, now: T0, lease: { owner: 'test#1', until: lease } });
        assert.equal(s.kind, 'created');
        return s.kind === 'created' ? s.verification.id : '';
      };
      // Far in the past: checks of other tests (leased until LEASE) and of earlier runs stay out of the way.
      const past = new Date('2000-01-01T00:00:00.000Z');
      const abandoned = await start('deliverable@lease.test', new Date(past.getTime() + 1000));
      const renewed = await start('undeliverable@lease.test', new Date(past.getTime() + 1000));
      const finished = await start('role@lease.test', new Date(past.getTime() + 1000));
      // Its caller got an error or nothing (no 202): a lapsed lease fails and releases it.
      const unanswered = await start('unknown@lease.test', new Date(past.getTime() + 1000));
      for (const id of [abandoned, renewed]) await store.verifications.markResumable(id);
      await store.verifications.complete({ verificationId: finished, result: await result('role@lease.test'), now: at(1) });
      assert.deepEqual(await store.leases.renew('check', 'test#1', [renewed, finished], LEASE), [finished], 'a finished check holds no lease');
      const ours = (records: Array<{ id: string }>) => records.map((r) => r.id).filter((id) => [abandoned, renewed, finished, unanswered].includes(id));
      const sweep = (ms: number) => store.leases.takeLapsed('check', { owner: 'test#2', now: new Date(past.getTime() + ms), until: new Date(past.getTime() + ms + 60_000), limit: 100 });
      assert.deepEqual(ours(await sweep(500)), [], 'no lease has lapsed yet');
      assert.equal((await store.verifications.get(a.id, unanswered))?.state, 'running');
      const taken = await sweep(2000);
      assert.deepEqual(ours(taken), [abandoned]);
      assert.equal((await store.verifications.get(a.id, unanswered))?.state, 'failed', 'never answered 202: released, not resumed');
      const record = taken.find((r) => r.id === abandoned);
      assert.deepEqual([record?.email, record?.state, record?.billable], ['deliverable@lease.test', 'running', true]);
      assert.deepEqual(ours(await sweep(3000)), [], 'taken over once: the new lease holds');
      assert.deepEqual(await store.leases.renew('check', 'test#1', [abandoned], LEASE), [abandoned], 'the old holder is told it lost the check');
      assert.deepEqual(ours(await sweep(70_000)), [abandoned], 'the new holder died too');
      assert.equal((await store.ledger.getBalance(a.id)).held, 2, 'a takeover holds nothing more');
    });

    test('an idempotency record is forgotten after it expires', async () => {
      const a = await account(5);
      const claim = { route: 'POST /v1/verify', key: unique('v'), bodyHash: 'b', expiresAt: at(1000).toISOString() };
      const first = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'a@h.test', billable: false, idempotency: claim, now: T0 });
      const later = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'b@h.test', billable: false, idempotency: { ...claim, bodyHash: 'other', expiresAt: at(90_000).toISOString() }, now: at(2000) });
      assert.equal(first.kind, 'created');
      assert.equal(later.kind, 'created');
    });

    test('a failed verification, or one whose lease lapsed before any 202, releases its hold', async () => {
      const a = await account(2);
      const mk = async () => {
        const s = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'a@h.test', billable: true, idempotency: { route: 'v', key: unique('v'), bodyHash: 'b', expiresAt: at(86_400_000).toISOString() }, now: T0 });
        assert.equal(s.kind, 'created');
        return s.kind === 'created' ? s.verification.id : '';
      };
      const x = await mk();
      await mk();
      assert.equal((await store.ledger.getBalance(a.id)).held, 2);
      assert.equal((await store.verifications.fail({ verificationId: x, now: at(1) })).state, 'failed');
      assert.ok((await store.leases.endLapsed('check', new Date(LEASE.getTime() + 1))) >= 1);
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 2, debited: 0, held: 0, available: 2 });
    });

    test('a batch holds one credit per open item, or nothing when the balance is short', async () => {
      const a = await account(2);
      const short = await store.batches.create(batch(a, ['a@x.test', 'b@x.test', 'c@x.test']));
      assert.deepEqual(short, { kind: 'insufficient_credits', available: 2, needed: 3 });
      assert.equal((await store.ledger.getBalance(a.id)).held, 0);
      const ok = await store.batches.create(batch(a, ['a@x.test', 'b@x.test'], { total: 3 }));
      assert.equal(ok.kind, 'created');
      if (ok.kind !== 'created') return;
      assert.equal(ok.request.state, 'queued');
      assert.deepEqual([ok.request.counters.total, ok.request.counters.unique, ok.request.counters.duplicates], [3, 2, 1]);
      assert.equal(ok.request.counters.creditsHeld, 2);
      assert.equal(ok.request.counters.pending, 2);
      assert.equal((await store.ledger.getBalance(a.id)).available, 0);
      const b = await account(0);
      assert.equal(await store.batches.get(b.id, ok.request.id), null);
    });

    test('racing identical batch creations make exactly one request', async () => {
      const a = await account(100);
      const input = batch(a, ['a@x.test', 'b@x.test']);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.batches.create(input)));
      const created = outcomes.filter((o) => o.kind === 'created');
      assert.equal(created.length, 1);
      const ids = new Set(outcomes.map((o) => (o.kind === 'created' || o.kind === 'replay' ? o.request.id : 'x')));
      assert.equal(ids.size, 1);
      assert.equal((await store.ledger.getBalance(a.id)).held, 2);
      const mismatch = await store.batches.create({ ...input, idempotency: { ...input.idempotency, bodyHash: 'other' } });
      assert.equal(mismatch.kind, 'idempotency_mismatch');
    });

    test('items are leased grouped by domain, each final result gets the next sequence number, and the last one finalizes the request', async () => {
      const a = await account(10);
      const created = await store.batches.create(batch(a, ['deliverable@b.test', 'unknown@a.test', 'undeliverable@b.test', 'x@a.test']));
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      const id = created.request.id;
      const claimed = await store.work.claim({ owner: 'w#1', affinity: 'w', now: at(1), leaseMs: 60_000, limit: 10, affinityGraceMs: 60_000 });
      const mine = claimed.filter((c) => c.requestId === id);
      assert.deepEqual(mine.map((c) => c.domain), ['a.test', 'a.test', 'b.test', 'b.test']);
      assert.equal((await store.batches.get(a.id, id))?.state, 'running');
      for (const c of mine) {
        const out = await store.batches.recordItemResult({ kind: 'final', itemId: c.itemId, result: await result(c.email), now: at(2), retentionDays: 30 });
        assert.equal(out.recorded, true);
        const again = await store.batches.recordItemResult({ kind: 'final', itemId: c.itemId, result: await result(c.email), now: at(3), retentionDays: 30 });
        assert.equal(again.recorded, false, 'a retried result is a no-op');
      }
      const view = await store.batches.get(a.id, id);
      assert.equal(view?.state, 'completed');
      assert.equal(view?.finalization?.results, 4);
      assert.equal(view?.finalization?.creditsDebited, 3);
      assert.equal(view?.finalization?.creditsReleased, 1);
      assert.equal(view?.retentionExpiresAt, new Date(at(2).getTime() + 30 * 86_400_000).toISOString());
      assert.deepEqual([view?.counters.creditsHeld, view?.counters.creditsDebited, view?.counters.creditsReleased], [0, 3, 1]);
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 10, debited: 3, held: 0, available: 7 });
      const slice = await store.batches.resultsSlice({ accountId: a.id, requestId: id, afterSeq: 1, limit: 2 });
      assert.deepEqual(slice?.rows.map((r) => r.finalSeq), [2, 3]);
      assert.equal(slice?.finalCount, 4);
      assert.equal(await store.batches.resultsSlice({ accountId: (await account(0)).id, requestId: id, afterSeq: 0, limit: 2 }), null);
    });

    test('an expired lease is taken over, and a result stored by both workers is billed once', async () => {
      const a = await account(5);
      await drainOthers();
      const created = await store.batches.create(batch(a, ['deliverable@lease.test']));
      assert.equal(created.kind, 'created');
      const first = await store.work.claim({ owner: 'w#dead', affinity: 'w', now: at(0), leaseMs: 1000, limit: 10, affinityGraceMs: 0 });
      assert.equal(first.length, 1);
      assert.equal((await store.work.claim({ owner: 'w#2', affinity: 'w', now: at(500), leaseMs: 1000, limit: 10, affinityGraceMs: 0 })).length, 0);
      const taken = await store.work.claim({ owner: 'w#2', affinity: 'w', now: at(1500), leaseMs: 1000, limit: 10, affinityGraceMs: 0 });
      assert.equal(taken.length, 1);
      assert.equal(taken[0]?.attempts, 1);
      const r = await result('deliverable@lease.test');
      const id = taken[0]?.itemId ?? 0;
      await store.batches.recordItemResult({ kind: 'final', itemId: id, result: r, now: at(1600), retentionDays: 30 });
      await store.batches.recordItemResult({ kind: 'final', itemId: id, result: r, now: at(1700), retentionDays: 30 });
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 5, debited: 1, held: 0, available: 4 });
    });

    /** Finishes every open item of earlier tests so leasing tests see only their own items. */
    async function drainOthers() {
      await drain('w#drain', at(-1));
    }

    test('batch counters equal a full count of the items at every step of a batch', { skip: options.countItems ? false : 'no direct view of the database' }, async () => {
      const countItems = options.countItems;
      if (!countItems) return;
      const a = await account(100);
      await drainOthers();
      const kinds = ['deliverable', 'undeliverable', 'catchall', 'unknown', 'transient', 'role', 'greylisted'];
      const emails = Array.from({ length: 35 }, (_, i) => `${kinds[i % kinds.length]}+${i}@d${i % 4}.counters.test`);
      const rejected = await result('not-an-address');
      const created = await store.batches.create({
        ...batch(a, emails),
        mode: 'list',
        total: 37,
        items: [
          ...emails.map((email) => ({ email, domain: email.split('@')[1] ?? '' })),
          { email: 'bad-1', domain: '', finalResult: rejected },
          { email: 'bad-2', domain: '', finalResult: rejected },
        ],
      });
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      const id = created.request.id;
      const check = async (step: string) =>
        assert.deepEqual((await store.batches.get(a.id, id))?.counters, countersFrom(37, 37, await countItems(id)), step);
      await check('created');
      const claim = (ms: number, limit: number) => store.work.claim({ owner: 'w#c', affinity: 'wc', now: at(ms), leaseMs: 60_000, limit, affinityGraceMs: 0 });
      const finish = async (item: { itemId: number; email: string }, ms: number) =>
        store.batches.recordItemResult({ kind: 'final', itemId: item.itemId, result: await result(item.email), now: at(ms), retentionDays: 30 });
      const first = await claim(1, 12);
      assert.ok(first.length >= 9, `claimed ${first.length}`);
      await check('claimed');
      for (const item of first.slice(0, 5)) await finish(item, 2);
      await check('five final');
      for (const item of first.slice(5, 8)) await store.batches.recordItemResult({ kind: 'recheck', itemId: item.itemId, affinity: 'wc', recheckAt: at(100), now: at(3) });
      await store.leases.release(
        'item',
        'w#c',
        first.slice(8).map((i) => i.itemId),
        at(3),
      );
      await check('three rechecking, the rest handed back');
      for (let round = 0; round < 40 && (await store.batches.get(a.id, id))?.state !== 'completed'; round++) {
        for (const item of await claim(200 + round, 10)) await finish(item, 201 + round);
        await check(`round ${round}`);
      }
      const view = await store.batches.get(a.id, id);
      assert.equal(view?.state, 'completed');
      assert.deepEqual([view?.counters.pending, view?.counters.rechecking, view?.counters.completed + (view?.counters.failed ?? 0)], [0, 0, 37]);
    });

    test('a handed-back item is pending again; a greylisted item waits for its recheck and its own worker first', async () => {
      const a = await account(5);
      await drainOthers();
      const created = await store.batches.create(batch(a, ['greylisted@g.test']));
      assert.equal(created.kind, 'created');
      const [item] = await store.work.claim({ owner: 'w#1', affinity: 'w1', now: at(0), leaseMs: 60_000, limit: 10, affinityGraceMs: 10_000 });
      assert.ok(item);
      await store.leases.release('item', 'w#1', [item.itemId], at(0));
      const [again] = await store.work.claim({ owner: 'w#1', affinity: 'w1', now: at(1), leaseMs: 60_000, limit: 10, affinityGraceMs: 10_000 });
      assert.equal(again?.itemId, item.itemId);
      await store.batches.recordItemResult({ kind: 'recheck', itemId: item.itemId, affinity: 'w1', recheckAt: at(1000), now: at(2) });
      const view = await store.batches.get(a.id, again.requestId);
      assert.deepEqual([view?.counters.rechecking, view?.counters.pending, view?.counters.creditsHeld, view?.state], [1, 0, 1, 'running']);
      assert.equal((await store.work.claim({ owner: 'w#1', affinity: 'w1', now: at(500), leaseMs: 60_000, limit: 10, affinityGraceMs: 10_000 })).length, 0);
      assert.equal((await store.work.claim({ owner: 'w#9', affinity: 'w9', now: at(2000), leaseMs: 60_000, limit: 10, affinityGraceMs: 10_000 })).length, 0, 'another worker waits for the grace period');
      const back = await store.work.claim({ owner: 'w#1', affinity: 'w1', now: at(2000), leaseMs: 60_000, limit: 10, affinityGraceMs: 10_000 });
      assert.equal(back[0]?.rechecks, 1);
      await store.batches.recordItemResult({ kind: 'final', itemId: item.itemId, result: await result('deliverable@g.test'), now: at(2100), retentionDays: 30 });
      assert.equal((await store.batches.get(a.id, again.requestId))?.state, 'completed');
    });

    test('a batch whose every item failed ends failed with engine_unavailable, its holds released and nothing debited', async () => {
      const a = await account(3);
      await drainOthers();
      const created = await store.batches.create(batch(a, ['one@fail.test', 'two@fail.test']));
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      const claimed = await store.work.claim({ owner: 'w#f', affinity: 'wf', now: at(1), leaseMs: 60_000, limit: 10, affinityGraceMs: 0 });
      assert.equal(claimed.length, 2);
      const outcomes = [];
      for (const item of claimed) outcomes.push(await store.batches.recordItemResult({ kind: 'final', itemId: item.itemId, result: failedResult(at(2)), now: at(2), retentionDays: 30 }));
      assert.deepEqual(outcomes.map((o) => [o.recorded, o.debited]), [[true, 0], [true, 0]]);
      assert.equal(outcomes.filter((o) => o.finalizedRequest).length, 1, 'the last result ends the request');
      const view = await store.batches.get(a.id, created.request.id);
      assert.deepEqual([view?.state, view?.errorCode, view?.finalization?.outcome], ['failed', 'engine_unavailable', 'failed']);
      assert.deepEqual([view?.finalization?.creditsDebited, view?.finalization?.creditsReleased, view?.counters.failed], [0, 2, 2]);
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 3, debited: 0, held: 0, available: 3 });
    });

    test('a batch with one item failed and one verdict ends completed', async () => {
      const a = await account(3);
      await drainOthers();
      const created = await store.batches.create(batch(a, ['deliverable@mixed.test', 'broken@mixed.test']));
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      for (const item of await store.work.claim({ owner: 'w#m', affinity: 'wm', now: at(1), leaseMs: 60_000, limit: 10, affinityGraceMs: 0 })) {
        const r = item.email.startsWith('broken') ? failedResult(at(2)) : await result(item.email);
        await store.batches.recordItemResult({ kind: 'final', itemId: item.itemId, result: r, now: at(2), retentionDays: 30 });
      }
      const view = await store.batches.get(a.id, created.request.id);
      assert.deepEqual([view?.state, view?.errorCode, view?.finalization?.outcome], ['completed', null, 'completed']);
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 3, debited: 1, held: 0, available: 2 });
    });

    test('a check ending in a non-verdict releases its credit; a sandbox check bills nothing', async () => {
      const a = await account(1);
      const claim = () => ({ route: 'POST /v1/verify', key: unique('v'), bodyHash: 'b', expiresAt: at(86_400_000).toISOString() });
      const started = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'unknown@r.test', billable: true, idempotency: claim(), now: T0 });
      assert.equal(started.kind, 'created');
      if (started.kind !== 'created') return;
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 1, debited: 0, held: 1, available: 0 });
      const done = await store.verifications.complete({ verificationId: started.verification.id, result: await result('unknown@r.test'), now: at(1) });
      assert.deepEqual(done.result?.envelope.billing, { disposition: 'released', credits: 0 });
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 1, debited: 0, held: 0, available: 1 });
      const sandboxCheck = await store.verifications.start({
        accountId: a.id,
        lease: { owner: 'test#1', until: LEASE },
        keyId: a.keyId,
        email: 'deliverable@r.test',
        billable: false,
        idempotency: claim(),
        now: at(2),
        result: await result('deliverable@r.test'),
      });
      assert.equal(sandboxCheck.kind === 'created' && sandboxCheck.verification.result?.envelope.billing.disposition, 'released');
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 1, debited: 0, held: 0, available: 1 });
    });

    test('a sandbox batch holds and debits nothing, though its verdicts count', async () => {
      const a = await account(0);
      await drainOthers();
      const created = await store.batches.create(batch(a, ['deliverable@sb.test', 'undeliverable@sb.test'], { billable: false }));
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      assert.equal(created.request.sandbox, true);
      assert.equal(created.request.counters.creditsHeld, 0);
      await drain('w#sb', at(5));
      const view = await store.batches.get(a.id, created.request.id);
      assert.deepEqual([view?.state, view?.counters.send, view?.counters.suppress], ['completed', 1, 1]);
      assert.deepEqual([view?.counters.creditsHeld, view?.counters.creditsDebited, view?.counters.creditsReleased], [0, 0, 0]);
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 0, debited: 0, held: 0, available: 0 });
    });

    test('recent live results for the prober\'s health: batch items and single checks, sandbox work left out, bounded by time and count', async () => {
      const later = new Date('2031-06-01T00:00:00.000Z');
      const after = (ms: number) => new Date(later.getTime() + ms);
      const a = await account(10);
      await drainOthers();
      assert.equal((await store.batches.create(batch(a, ['unknown@ph.test', 'deliverable@ph.test'], { now: later }))).kind, 'created');
      assert.equal((await store.batches.create(batch(a, ['unknown@ph-sandbox.test'], { billable: false, now: later }))).kind, 'created');
      await drain('w#ph', after(1000));
      const claim = { route: 'POST /v1/verify', key: unique('ph'), bodyHash: 'b', expiresAt: after(86_400_000).toISOString() };
      const started = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: after(86_400_000) }, keyId: a.keyId, email: 'unknown@ph-single.test', billable: true, idempotency: claim, now: after(2000) });
      assert.equal(started.kind, 'created');
      if (started.kind !== 'created') return;
      await store.verifications.complete({ verificationId: started.verification.id, result: await result('unknown@ph-single.test'), now: after(3000) });

      const recent = await store.proberReplies.recent({ since: later, limit: 100 });
      assert.equal(recent.length, 3, 'two live items and one live check; the sandbox batch is not counted');
      assert.equal(recent.filter((r) => r.reasons.includes('probe_blocked')).length, 2);
      assert.ok(recent.every((r) => typeof r.providerFamily === 'string' || r.providerFamily === null));
      assert.equal((await store.proberReplies.recent({ since: later, limit: 1 })).length, 2, 'the limit bounds items and checks each');
      assert.equal((await store.proberReplies.recent({ since: after(86_400_000), limit: 100 })).length, 0);
    });

    test('results for one address written together count every check in its history', async () => {
      const a = await account(4);
      await drainOthers();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const created = await store.batches.create(batch(a, ['deliverable@hist.test']));
        assert.equal(created.kind, 'created');
        if (created.kind === 'created') ids.push(created.request.id);
      }
      const claimed = await store.work.claim({ owner: 'w#h', affinity: 'wh', now: at(1), leaseMs: 60_000, limit: 10, affinityGraceMs: 0 });
      assert.equal(claimed.length, 3);
      const r = await result('deliverable@hist.test');
      // Handed in at once: gathered into shared transactions, as a worker's results are.
      await Promise.all(claimed.map((i) => store.batches.recordItemResult({ kind: 'final', itemId: i.itemId, result: r, now: at(2), retentionDays: 30 })));
      const checks = [];
      for (const id of ids) checks.push((await store.batches.resultsSlice({ accountId: a.id, requestId: id, afterSeq: 0, limit: 5 }))?.rows[0]?.envelope.history?.checks ?? 0);
      assert.deepEqual(checks.sort(), [0, 1, 2], 'each result saw the checks before it');
      const claim = { route: 'POST /v1/verify', key: unique('v'), bodyHash: 'b', expiresAt: at(86_400_000).toISOString() };
      const single = await store.verifications.start({ accountId: a.id, lease: { owner: 'test#1', until: LEASE }, keyId: a.keyId, email: 'deliverable@hist.test', billable: true, idempotency: claim, now: at(3), result: r });
      assert.equal(single.kind === 'created' && single.verification.result?.envelope.history?.checks, 3);
      assert.deepEqual(await store.ledger.getBalance(a.id), { granted: 4, debited: 4, held: 0, available: 0 });
    });

    test('a lease renewed by its holder is kept; one taken over is reported lost', async () => {
      const a = await account(2);
      await drainOthers();
      await store.batches.create(batch(a, ['deliverable@renew.test']));
      const [item] = await store.work.claim({ owner: 'w#slow', affinity: 'ws', now: at(0), leaseMs: 1_000, limit: 10, affinityGraceMs: 0 });
      assert.ok(item);
      assert.deepEqual(await store.leases.renew('item', 'w#slow', [item.itemId], at(900)), [], 'still held');
      const [taken] = await store.work.claim({ owner: 'w#new', affinity: 'wn', now: at(2_000), leaseMs: 60_000, limit: 10, affinityGraceMs: 0 });
      assert.equal(taken?.itemId, item.itemId);
      assert.deepEqual(await store.leases.renew('item', 'w#slow', [item.itemId], at(3_000)), [item.itemId], 'lost to the new holder');
      assert.deepEqual(await store.leases.renew('item', 'w#new', [item.itemId], at(3_000)), []);
      await store.batches.recordItemResult({ kind: 'final', itemId: item.itemId, result: await result('deliverable@renew.test'), now: at(3_100), retentionDays: 30 });
      assert.deepEqual(await store.leases.renew('item', 'w#new', [item.itemId], at(4_000)), [item.itemId], 'a final item holds no lease');
    });

    test('a lapsed list fill is taken over by one other owner and its old holder told it lost; a released one is taken at once', async () => {
      const a = await account(10);
      const created = await store.batches.create({ ...batch(a, []), mode: 'list', total: 2, fillFromList: { lease: { owner: 'node#a', until: at(1_000) } } });
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      const id = created.request.id;
      const mine = <T extends { requestId: string }>(taken: T[]) => taken.filter((t) => t.requestId === id);
      const take = (owner: string, ms: number) => store.leases.takeLapsed('listFill', { owner, now: at(ms), until: at(ms + 60_000), limit: 100 });
      assert.deepEqual(await store.leases.renew('listFill', 'node#a', [id], at(2_000)), [], 'renewed by its holder');
      assert.deepEqual(mine(await take('node#b', 1_500)), [], 'not lapsed: renewed until 2 s');
      const [byB, byC] = await Promise.all([take('node#b', 2_500), take('node#c', 2_500)]);
      assert.equal(mine(byB).length + mine(byC).length, 1, 'taken over by one owner');
      assert.deepEqual(
        mine([...byB, ...byC]).map((t) => t.position),
        [0],
        'resumed where it stopped',
      );
      const taker = mine(byB).length > 0 ? 'node#b' : 'node#c';
      assert.deepEqual(await store.leases.renew('listFill', 'node#a', [id], at(3_000)), [id], 'the old holder is told it lost the fill');
      assert.deepEqual(await store.leases.renew('listFill', taker, [id], at(70_000)), []);
      await store.leases.release('listFill', taker, [id], at(3_000));
      assert.equal(mine(await take('node#d', 3_001)).length, 1, 'handed back: taken at once, before its lease would have ended');
    });

    test('a feedback import whose process died ends failed once its lease lapses; one still renewed runs on', async () => {
      const a = await account(0);
      const dead = await store.feedback.startImport({ accountId: a.id, source: 'csv', name: 'dead.csv', now: T0, lease: { owner: 'cli#dead', until: at(1_000) } });
      const alive = await store.feedback.startImport({ accountId: a.id, source: 'csv', name: 'alive.csv', now: T0, lease: { owner: 'cli#alive', until: at(1_000) } });
      assert.deepEqual(await store.leases.renew('feedbackImport', 'cli#alive', [alive], at(5_000)), []);
      assert.ok((await store.leases.endLapsed('feedbackImport', at(2_000))) >= 1);
      const states = Object.fromEntries((await store.feedback.imports(a.id, 10)).map((i) => [i.name, i.state]));
      assert.deepEqual(states, { 'dead.csv': 'failed', 'alive.csv': 'running' });
      assert.deepEqual(await store.leases.renew('feedbackImport', 'cli#dead', [dead], at(3_000)), [dead], 'its process, were it only stalled, is told it lost the import');
      assert.equal((await store.feedback.finishImport(dead, 'completed', at(3_000))).state, 'failed', 'an ended import stays failed');
      assert.equal((await store.feedback.finishImport(alive, 'completed', at(3_000))).state, 'completed');
    });

    test('a list import is ready with every entry in order, or failed and named when its entries fail to arrive', async () => {
      const a = await account(0);
      async function* chunks() {
        yield ['a@imp.test', 'b@imp.test'];
        yield ['c@imp.test'];
      }
      const list = await store.lists.importList({ accountId: a.id, name: 'imported', now: T0, entries: chunks() });
      assert.deepEqual([list.state, list.entries], ['ready', 3]);
      assert.deepEqual((await store.lists.readListSlice(list.id, 0, 1_000)).map((e) => e.email), ['a@imp.test', 'b@imp.test', 'c@imp.test']);
      async function* broken() {
        yield ['d@imp.test'];
        throw new Error('unreadable file');
      }
      const failed = await store.lists.importList({ accountId: a.id, name: 'broken', now: T0, entries: broken() }).then(
        () => null,
        (err: unknown) => err as Error & { listId?: string },
      );
      assert.match(String(failed?.message), /unreadable file/);
      assert.equal((await store.lists.getList(a.id, failed?.listId ?? ''))?.state, 'failed');
      await assert.rejects(store.lists.importList({ accountId: a.id, name: 'empty', now: T0, entries: [] }), /no addresses/);
    });

    test('two fillers writing the same chunk of a list batch at once: one writes it, the other is told it lost and writes nothing', async () => {
      const a = await account(10);
      const created = await store.batches.create({ ...batch(a, []), mode: 'list', total: 4, fillFromList: { lease: { owner: 'filler#1', until: at(60_000) } } });
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      const requestId = created.request.id;
      const r = await result('not an address');
      const rejected = { ...r, envelope: { ...r.envelope, status: 'rejected' as const, outcome: 'non_verdict' as const, verdict: null, decision: 'suppress' as const } };
      const chunk = () => ({
        requestId,
        from: 0,
        next: 3,
        done: false,
        items: [
          { email: 'one@fill.test', domain: 'fill.test' },
          { email: 'two@fill.test', domain: 'fill.test' },
          { email: 'not an address', domain: '', finalResult: rejected },
        ],
        now: at(1),
        retentionDays: 30,
      });
      assert.equal((await store.accountViews.requestSummary(a.id, requestId))?.listRowsWritten, 0, 'nothing of the list read yet');
      const outcomes = await Promise.all([store.listBatches.writeFillChunk(chunk()), store.listBatches.writeFillChunk(chunk())]);
      assert.deepEqual([...outcomes].sort(), ['lost', 'written']);
      assert.equal((await store.accountViews.requestSummary(a.id, requestId))?.listRowsWritten, 3, 'three rows of four read (the dashboard counts progress by them)');
      const view = await store.batches.get(a.id, requestId);
      assert.equal(view?.counters.unique, 3, 'two pending items and one rejected entry, once');
      assert.equal(view?.counters.pending, 2);
      // Four held at creation; the rejected entry's credit released once.
      assert.equal((await store.ledger.getBalance(a.id)).held, 3);
      // The chunk after it goes on from where the winner left the fill.
      assert.equal(await store.listBatches.writeFillChunk(chunk()), 'lost');
      assert.equal(await store.listBatches.writeFillChunk({ ...chunk(), items: [{ email: 'four@fill.test', domain: 'fill.test' }], from: 3, next: 4, done: true }), 'written');
      assert.equal((await store.batches.get(a.id, requestId))?.counters.unique, 4);
      assert.equal((await store.accountViews.requestSummary(a.id, requestId))?.listRowsWritten, null, 'the whole list is read');
    });

    test('rejected items are final at creation, unbilled, and a request of only those is completed at once', async () => {
      const a = await account(0);
      const r = await result('deliverable@x.test');
      const rejected = { ...r, envelope: { ...r.envelope, status: 'rejected' as const, outcome: 'non_verdict' as const, verdict: null, decision: 'suppress' as const } };
      const created = await store.batches.create({ ...batch(a, []), mode: 'list', total: 2, items: [{ email: 'bad one', domain: '', finalResult: rejected }] });
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      assert.equal(created.request.state, 'completed');
      assert.deepEqual([created.request.counters.failed, created.request.counters.suppress, created.request.counters.duplicates], [1, 1, 1]);
    });

    test('purge deletes a failed import’s entries in small transactions: a write issued meanwhile commits before it ends', async () => {
      const a = await account(0);
      const entries = Array.from({ length: 20_000 }, (_, i) => `f${i}@purge.test`);
      const list = await store.lists.createList({ accountId: a.id, name: 'failed', now: T0 });
      for (let i = 0; i < entries.length; i += 5_000) await store.lists.appendListEntries(list.id, entries.slice(i, i + 5_000));
      await store.lists.finishListImport(list.id, 'failed');
      let purgeDone = false;
      const purging = store.retention.purgeExpired(at(0), 30, { chunk: 500 }).then((outcome) => {
        purgeDone = true;
        return outcome;
      });
      await new Promise((resolve) => setImmediate(resolve));
      await store.ledger.grantCredits(a.id, 1, at(0));
      assert.equal(purgeDone, false, 'a write issued during the purge commits between its transactions');
      const outcome = await purging;
      assert.ok(outcome.failedLists >= 1);
      assert.deepEqual((await store.lists.readListSlice(list.id, 0, 1_000)).map((e) => e.email), []);
      assert.equal((await store.lists.getList(a.id, list.id))?.state, 'failed', 'the failed list itself stays (with its error) until past retention');
    });

    test('requests past retention, old finished verifications and expired idempotency records are purged', async () => {
      const a = await account(5);
      await drainOthers();
      const created = await store.batches.create(batch(a, ['deliverable@p.test']));
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      await drain('w#p', at(10));
      assert.equal((await store.batches.get(a.id, created.request.id))?.state, 'completed');
      const early = await store.retention.purgeExpired(at(60_000), 30);
      assert.equal(early.requests, 0);
      // Retention counts from finalization (at 10 ms), 30 days.
      const before = await store.retention.purgeExpired(at(30 * 86_400_000 + 9), 30);
      assert.ok(before.idempotencyRecords >= 1, 'idempotency records live 24 h');
      assert.ok(await store.batches.get(a.id, created.request.id), 'kept until its retention ends');
      const late = await store.retention.purgeExpired(at(30 * 86_400_000 + 10), 30);
      assert.ok(late.requests >= 1, JSON.stringify({ late, view: await store.batches.get(a.id, created.request.id) }));
      assert.equal(await store.batches.get(a.id, created.request.id), null);
      assert.ok((await store.work.depth()) >= 0);
    });

    test('evidence is kept per single check and per batch item, replaced by a recheck, read by its own account, and purged with the check', async () => {
      const a = await account(5);
      const b = await account(0);
      await drainOthers();
      const created = await store.batches.create(batch(a, ['deliverable@ev.test']));
      assert.equal(created.kind, 'created');
      if (created.kind !== 'created') return;
      await drain('w#ev', at(10));
      const evidence = (outcome: string) => ({ version: 1, outcome, transcript: [{ atMs: 3, dir: 'S', host: 'mx.ev.test', text: '250 2.1.5 ok' }] }) as unknown as Evidence;
      const single = unique('ver');
      const many = Array.from({ length: 450 }, (_, i) => ({ accountId: a.id, checkId: created.request.id, email: `m${i}@ev.test`, kind: 'item' as const, evidence: evidence(`item ${i}`), now: at(10) }));
      await store.evidence.record([
        { accountId: a.id, checkId: created.request.id, email: 'deliverable@ev.test', kind: 'item', evidence: evidence('first'), now: at(5) },
        { accountId: a.id, checkId: single, email: 'one@ev.test', kind: 'check', evidence: evidence('single'), now: at(10) },
        ...many,
      ]);
      await store.evidence.record([{ accountId: a.id, checkId: created.request.id, email: 'deliverable@ev.test', kind: 'item', evidence: evidence('recheck'), now: at(10) }]);
      assert.equal((await store.evidence.ofCheck(a.id, created.request.id, 'deliverable@ev.test'))?.outcome, 'recheck', 'a recheck replaces the evidence');
      assert.deepEqual((await store.evidence.ofCheck(a.id, single, 'one@ev.test'))?.transcript, evidence('single').transcript);
      assert.equal((await store.evidence.ofCheck(a.id, created.request.id, 'm449@ev.test'))?.outcome, 'item 449', 'many rows in one call');
      assert.equal(await store.evidence.ofCheck(b.id, single, 'one@ev.test'), null, 'another account reads nothing');
      await store.retention.purgeExpired(at(30 * 86_400_000 + 9), 30);
      assert.ok(await store.evidence.ofCheck(a.id, single, 'one@ev.test'), 'kept for the retention');
      assert.ok(await store.evidence.ofCheck(a.id, created.request.id, 'deliverable@ev.test'));
      await store.retention.purgeExpired(at(30 * 86_400_000 + 10), 30);
      assert.equal(await store.evidence.ofCheck(a.id, single, 'one@ev.test'), null, 'a single check’s evidence goes with the verifications past retention');
      assert.equal(await store.evidence.ofCheck(a.id, created.request.id, 'deliverable@ev.test'), null, 'a batch’s evidence goes with its request');
      assert.equal(await store.evidence.ofCheck(a.id, created.request.id, 'm7@ev.test'), null);
    });

    test('a decision policy is versioned per account: version 0 is the default, each change the next version, none rewritten', async () => {
      const a = await account(0);
      const b = await account(0);
      assert.deepEqual(await store.policies.current(a.id), { accountId: a.id, version: 0, rules: { decisions: {}, minConfidence: null }, changedBy: null, changedAt: null });
      assert.deepEqual(await store.policies.history(a.id, 10), []);
      const first = await store.policies.set({ accountId: a.id, rules: { decisions: { ROLE: 'send' }, minConfidence: 0.75 }, changedBy: 'owner@a.test', now: at(1) });
      assert.equal(first.kind, 'set');
      const second = await store.policies.set({ accountId: a.id, rules: { decisions: { CATCH_ALL: 'manual_review' }, minConfidence: null }, changedBy: 'cli:root', expectedVersion: 1, now: at(2) });
      assert.equal(second.kind, 'set');
      const current = await store.policies.current(a.id);
      assert.deepEqual(current, { accountId: a.id, version: 2, rules: { decisions: { CATCH_ALL: 'manual_review' }, minConfidence: null }, changedBy: 'cli:root', changedAt: at(2).toISOString() });
      const history = await store.policies.history(a.id, 10);
      assert.deepEqual(history.map((v) => [v.version, v.changedBy, v.changedAt, v.rules]), [
        [2, 'cli:root', at(2).toISOString(), { decisions: { CATCH_ALL: 'manual_review' }, minConfidence: null }],
        [1, 'owner@a.test', at(1).toISOString(), { decisions: { ROLE: 'send' }, minConfidence: 0.75 }],
      ]);
      assert.deepEqual(await store.policies.set({ accountId: a.id, rules: { decisions: {}, minConfidence: null }, changedBy: 'late form', expectedVersion: 1, now: at(3) }), { kind: 'stale', current: 2 });
      assert.equal((await store.policies.current(a.id)).version, 2, 'a stale change writes nothing');
      assert.equal((await store.policies.current(b.id)).version, 0, "another account's policy is its own");
      // Changes racing on one account are numbered one after the other, none lost.
      const raced = await Promise.all([0, 1, 2, 3].map((i) => store.policies.set({ accountId: b.id, rules: { decisions: {}, minConfidence: (i + 1) / 10 }, changedBy: `racer ${i}`, now: at(10 + i) })));
      assert.deepEqual(raced.map((r) => (r.kind === 'set' ? r.policy.version : -1)).sort(), [1, 2, 3, 4]);
    });

    dashboardRoleCases(() => store);
  });
}

/**
 * A store that cannot write (issue 12, finding 5): a check answered with an error is never
 * billed, not even after a restart, and /readyz says not ready. The store is made to refuse
 * writes with triggers (SQLite RAISE, a PL/pgSQL exception on PostgreSQL), as a full disk does:
 * checks can start (their insert and credit hold go through), but nothing that ends them can
 * be written.
 */
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describeOnEveryBackend } from '../backends.js';
import type { BackendName } from '../backends.js';
import { startHarness, newIdem } from './harness.js';
import type { Harness } from './harness.js';
import { openDatabase } from '../backends.js';
import { until } from '../until.js';

const REFUSED = 'database or disk is full (test)';

interface Store {
  url: string;
  /** Writes that end a check, and the readiness probe's write, fail from now on. */
  refuseWrites(): Promise<void>;
  allowWrites(): Promise<void>;
  /** No check can even start (its insert fails), as with a disk already full. */
  refuseStarts(): Promise<void>;
  /** No batch can be created (its request's insert fails), until `allowBatches`. */
  refuseBatches(): Promise<void>;
  allowBatches(): Promise<void>;
  /** The table can no longer be read or written (renamed away, as a damaged or missing schema would leave it). */
  hideTable(name: string): Promise<void>;
  restoreTable(name: string): Promise<void>;
  drop(): Promise<void>;
}

async function sqliteStore(): Promise<Store> {
  const db = await openDatabase('SQLite');
  const file = db.url.slice('sqlite:'.length);
  const run = (sql: string) => {
    const db = new Database(file);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  };
  return {
    url: db.url,
    refuseWrites: async () =>
      run(`CREATE TRIGGER refuse_check_end BEFORE UPDATE ON verifications BEGIN SELECT RAISE(ABORT, '${REFUSED}'); END;
           CREATE TRIGGER refuse_probe_insert BEFORE INSERT ON ready_probe BEGIN SELECT RAISE(ABORT, '${REFUSED}'); END;
           CREATE TRIGGER refuse_probe_update BEFORE UPDATE ON ready_probe BEGIN SELECT RAISE(ABORT, '${REFUSED}'); END;`),
    allowWrites: async () => run('DROP TRIGGER refuse_check_end; DROP TRIGGER IF EXISTS refuse_probe_insert; DROP TRIGGER IF EXISTS refuse_probe_update;'),
    refuseStarts: async () => run(`CREATE TRIGGER refuse_check_start BEFORE INSERT ON verifications BEGIN SELECT RAISE(ABORT, '${REFUSED}'); END;`),
    refuseBatches: async () => run(`CREATE TRIGGER refuse_batch BEFORE INSERT ON requests BEGIN SELECT RAISE(ABORT, '${REFUSED}'); END;`),
    allowBatches: async () => run('DROP TRIGGER refuse_batch;'),
    hideTable: async (name) => run(`ALTER TABLE ${name} RENAME TO ${name}_away`),
    restoreTable: async (name) => run(`ALTER TABLE ${name}_away RENAME TO ${name}`),
    drop: db.drop,
  };
}

async function postgresStore(): Promise<Store> {
  const db = await openDatabase('PostgreSQL');
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    url: db.url,
    refuseWrites: () =>
      run(`CREATE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${REFUSED}'; END $$;
           CREATE TRIGGER refuse_check_end BEFORE UPDATE ON verifications FOR EACH ROW EXECUTE FUNCTION refuse_write();
           CREATE TRIGGER refuse_probe BEFORE INSERT OR UPDATE ON ready_probe FOR EACH ROW EXECUTE FUNCTION refuse_write();`),
    allowWrites: () => run('DROP TRIGGER refuse_check_end ON verifications; DROP TRIGGER refuse_probe ON ready_probe; DROP FUNCTION refuse_write();'),
    refuseStarts: () =>
      run(`CREATE FUNCTION refuse_start() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${REFUSED}'; END $$;
           CREATE TRIGGER refuse_check_start BEFORE INSERT ON verifications FOR EACH ROW EXECUTE FUNCTION refuse_start();`),
    refuseBatches: () =>
      run(`CREATE FUNCTION refuse_batch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${REFUSED}'; END $$;
           CREATE TRIGGER refuse_batch BEFORE INSERT ON requests FOR EACH ROW EXECUTE FUNCTION refuse_batch();`),
    allowBatches: () => run('DROP TRIGGER refuse_batch ON requests; DROP FUNCTION refuse_batch();'),
    hideTable: (name) => run(`ALTER TABLE ${name} RENAME TO ${name}_away`),
    restoreTable: (name) => run(`ALTER TABLE ${name}_away RENAME TO ${name}`),
    drop: db.drop,
  };
}

/** A serving process on `store`, with short leases so a restart's sweep comes within the test. */
function serve(store: Store): Promise<Harness> {
  return startHarness({ env: { PRESEND_DATABASE_URL: store.url, PRESEND_WORKER_LEASE_MS: '300' } });
}

/** A store of its own, one process on it and an account of 5 credits; closed, then dropped, after the test. */
async function servedAlone(backend: BackendName, t: TestContext): Promise<{ store: Store; h: Harness; a: { accountId: string; live: string; test: string } }> {
  const store = backend === 'SQLite' ? await sqliteStore() : await postgresStore();
  const h = await serve(store);
  t.after(async () => {
    await h.close();
    await store.drop();
  });
  return { store, h, a: await h.newAccount(5) };
}

describeOnEveryBackend('a store that cannot write', (backend: BackendName) => {
  test('a check answered with an error is never billed, even after a restart', async (t) => {
    const store = backend === 'SQLite' ? await sqliteStore() : await postgresStore();
    // Closed in this order: the processes, then the database.
    const open: Harness[] = [];
    t.after(async () => {
      for (const h of open) await h.close();
      await store.drop();
    });
    const first = await serve(store);
    open.push(first);
    const a = await first.newAccount(5);

    await store.refuseWrites();
    const answer = await first.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } });
    assert.ok(answer.status === 503 || answer.status === 502, `an error answer: ${answer.status} ${JSON.stringify(answer.body)}`);
    // The credit is still held: nothing could be written to end the check.
    assert.deepEqual(await first.backend.ledger.getBalance(a.accountId).then((b) => [b.available, b.held]), [4, 1]);

    // The process stops while the store still cannot write (as a crash would: nothing more is written),
    // then the store is repaired and a new process starts on it.
    open.splice(0);
    await first.close();
    await store.allowWrites();
    const second = await serve(store);
    open.push(second);
    assert.equal((await second.call('GET', '/readyz')).status, 200);
    // The sweep finds the check abandoned: it was answered with an error, so it is released, not run and debited.
    await until('the held credit is released', async () => (await second.backend.ledger.getBalance(a.accountId)).held === 0);
    await new Promise((resolve) => setTimeout(resolve, 500)); // kept: a few more sweeps, and an absence (no debit) is watched over a window
    const balance = await second.backend.ledger.getBalance(a.accountId);
    assert.deepEqual([balance.available, balance.held], [5, 0], 'no debit for a check answered with an error');
  });

  test('/readyz is 503 while the store cannot write; the check is 503 and released by the upkeep once it can', async (t) => {
    const { store, h, a } = await servedAlone(backend, t);
    assert.equal((await h.call('GET', '/readyz')).status, 200);
    await store.refuseWrites();
    const ready = await h.call('GET', '/readyz');
    assert.equal(ready.status, 503, 'not ready while the store cannot write');
    assert.equal(ready.body.error.code, 'service_unavailable');
    const answer = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } });
    assert.equal(answer.status, 503, `the store, not the engine, failed: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.error.code, 'service_unavailable');
    await store.allowWrites();
    await until('the held credit is released', async () => (await h.backend.ledger.getBalance(a.accountId)).held === 0);
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 5);
    assert.equal((await h.call('GET', '/readyz')).status, 200);
  });

  test('a check the store cannot even start is 503 service_unavailable (a status the spec lists), nothing held', async (t) => {
    const { store, h, a } = await servedAlone(backend, t);
    await store.refuseStarts();
    const answer = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } });
    assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, 'service_unavailable');
    assert.deepEqual(await h.backend.ledger.getBalance(a.accountId).then((b) => [b.available, b.held]), [5, 0]);
  });

  test('a batch the store cannot create is 503 service_unavailable, nothing held; the same Idempotency-Key creates it once the store can write', async (t) => {
    const { store, h, a } = await servedAlone(backend, t);
    await store.refuseBatches();
    const idem = newIdem();
    const body = { emails: ['deliverable@example.com', 'second@example.com'] };
    const refused = await h.call('POST', '/v1/requests', { key: a.live, idem, body });
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'service_unavailable');
    assert.match(refused.body.error.message, /retry later/);
    assert.deepEqual(await h.backend.ledger.getBalance(a.accountId).then((b) => [b.available, b.held]), [5, 0], 'nothing held');

    await store.allowBatches();
    const created = await h.call('POST', '/v1/requests', { key: a.live, idem, body });
    assert.equal(created.status, 202, 'the retry creates the batch: the refused call left no idempotency record behind');
    const replay = await h.call('POST', '/v1/requests', { key: a.live, idem, body });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.request.id, created.body.request.id);
  });

  test('a store that cannot answer is 503 service_unavailable on every /v1 route, never a 500', async (t) => {
    const { store, h, a } = await servedAlone(backend, t);
    const created = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: ['deliverable@example.com'] } });
    assert.equal(created.status, 202);
    const id = created.body.request.id as string;
    const calls = () => [
      h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['deliverable@example.com'] } }),
      h.call('GET', `/v1/requests/${id}`, { key: a.test }),
      h.call('GET', `/v1/requests/${id}/results`, { key: a.test }),
    ];

    // The routes' own statements fail (their table is gone); the keys still authenticate.
    await store.hideTable('requests');
    for (const answer of await Promise.all(calls())) {
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.error.code, 'service_unavailable');
    }
    await store.restoreTable('requests');

    // Authentication itself cannot read the keys: every route, single checks included.
    await store.hideTable('api_keys');
    const all = await Promise.all([...calls(), h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } })]);
    for (const answer of all) {
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.error.code, 'service_unavailable');
    }
    await store.restoreTable('api_keys');

    assert.equal((await h.call('GET', `/v1/requests/${id}`, { key: a.test })).status, 200, 'answered again once the store is repaired');
    assert.deepEqual(await h.backend.ledger.getBalance(a.accountId).then((b) => [b.available, b.held]), [5, 0], 'nothing held by the refused calls');
  });
});

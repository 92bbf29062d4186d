import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openBackend } from '../../src/store/open-backend.js';
import { timeOrderedId } from '../../src/store/time-ordered-id.js';
import { WalCheckpointer } from '../../src/store/sqlite/wal-checkpointer.js';
import Database from 'better-sqlite3';
import type { ItemGroup } from '../../src/store/billing-rules.js';
import { runStoreContract } from './contract.js';
import { until } from '../until.js';

runStoreContract('sqlite in memory', () => openBackend('sqlite::memory:'));

const dir = mkdtempSync(join(tmpdir(), 'presend-store-'));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
const contractFile = join(dir, 'store.db');
runStoreContract('sqlite file', () => openBackend(`sqlite:${contractFile}`), {
  async countItems(requestId) {
    const db = new Database(contractFile, { readonly: true });
    try {
      return db
        .prepare('SELECT state, envelope_status AS envelopeStatus, decision, billing, COUNT(*) AS count FROM items WHERE request_id = ? GROUP BY 1, 2, 3, 4')
        .all(requestId) as ItemGroup[];
    } finally {
      db.close();
    }
  },
});

test('a key revoked by another process on the same file stops working at once, though lookups are cached', async () => {
  const url = `sqlite:${join(dir, 'two-processes.db')}`;
  const server = await openBackend(url);
  await server.migrate();
  const admin = await openBackend(url); // what `presend keys revoke` opens in its own process
  try {
    const now = new Date();
    const account = await server.accounts.createAccount({ name: 'cached', credits: 0, now });
    assert.ok(account);
    const cached = await server.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: 'h-cached', displayPrefix: 'ps_live.cached', mode: 'live', now });
    assert.equal((await server.accounts.findActiveKey('h-cached'))?.accountId, account.id);
    assert.equal((await server.accounts.findActiveKey('h-cached'))?.accountId, account.id, 'served again (from the cache)');
    assert.equal((await admin.keyManagement.revokeKey({ accountId: account.id, keyId: cached.id, actor: { name: 'test' }, now }))?.revokedAt, now.toISOString());
    assert.equal(await server.accounts.findActiveKey('h-cached'), null);
    // A rate limit set elsewhere is seen on the next lookup as well.
    await admin.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: 'h-second', displayPrefix: 'ps_live.second', mode: 'live', now });
    assert.equal((await server.accounts.findActiveKey('h-second'))?.rateLimitBurst, null);
    await admin.accounts.setAccountRateLimit(account.id, 3, 7);
    assert.equal((await server.accounts.findActiveKey('h-second'))?.rateLimitBurst, 7);
  } finally {
    await admin.close();
    await server.close();
  }
});

test('a long-running store checkpoints its WAL from a background thread, and closes it cleanly', async () => {
  const path = join(dir, 'checkpointed.db');
  const store = await openBackend(`sqlite:${path}`, { longRunning: true });
  const account = await store.accounts.createAccount({ name: 'wal', credits: 0, now: new Date() });
  assert.ok(account);
  const list = await store.lists.createList({ accountId: account.id, name: 'big', now: new Date() });
  const before = statSync(path).size;
  // ≈ 6 MB of pages, written to the WAL; the serving connection alone would not checkpoint
  // them (its threshold is 100,000 pages), so the database file grows only by the thread's work.
  const emails = Array.from({ length: 60_000 }, (_, i) => `someone.with.a.long.local.part.${i}@example-${i % 100}.test`);
  await store.lists.appendListEntries(list.id, emails);
  await until(() => `the thread checkpoints the WAL into the database file (still ${statSync(path).size} bytes)`, () => statSync(path).size >= before + 4_000_000, 10_000, 50);
  await store.close();
  const reopened = await openBackend(`sqlite:${path}`);
  assert.equal(await reopened.ledger.getBalance(account.id).then((b) => b.granted), 0);
  await reopened.close();
});

test('the WAL file is cut back by the checkpoint thread once writes pause, never by a write on the event loop', async () => {
  const path = join(dir, 'wal-cut.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (v TEXT)');
  // Ticks of 20 ms, cut after 25 ticks (0.5 s) without a new frame.
  const checkpointer = new WalCheckpointer(db, 20, 25);
  const wal = `${path}-wal`;
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 20_000; i++) insert.run(`a row long enough to fill pages quickly ${i}`.repeat(4));
  })();
  const written = statSync(wal).size;
  assert.ok(written > 2_000_000, `WAL ${written} bytes`);
  // Once the thread has copied every frame, the next write restarts the log: it writes over the
  // file from its start and leaves its size alone (shrinking it there cost 330–470 ms).
  // Kept: the copy by the thread is not observable from here until the next write, which is what is checked.
  await new Promise((r) => setTimeout(r, 200));
  insert.run('after the copy');
  assert.equal(statSync(wal).size, written, 'a write on the serving connection changed the WAL file size');
  await until(() => `the WAL truncated after the last write (still ${statSync(wal).size} bytes)`, () => statSync(wal).size === 0, 10_000, 50);
  insert.run('after the cut');
  assert.equal((db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n, 20_002);
  await checkpointer.close();
  db.close();
});

test('check ids are UUIDv7: valid UUIDs whose text sorts in creation order', () => {
  const early = timeOrderedId(Date.UTC(2030, 0, 1));
  const later = timeOrderedId(Date.UTC(2030, 0, 1) + 1);
  for (const id of [early, later]) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.ok(early < later);
  assert.equal(early.slice(0, 13), '01b8dac5-b400'); // 2030-01-01T00:00:00Z = 0x01b8dac5b400 ms
  assert.notEqual(timeOrderedId(0), timeOrderedId(0), 'random bits after the time');
});

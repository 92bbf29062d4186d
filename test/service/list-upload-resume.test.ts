/**
 * An uploaded file whose import runs from its stored copy (its owner picked the address column)
 * survives the death of the node running it: the lease lapses, another node takes the import
 * over and finishes it from the entries already in the list, every address once, in file order,
 * bad rows counted once; the first node, should it wake up, stops at its next chunk instead of
 * writing it twice. Its death is a node frozen in the middle of the import: its next append never
 * returns (then, at the end, it does). On a SQLite file and on PostgreSQL.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import type { ListsRole } from '../../src/store/roles/lists.js';
import { ListUploads } from '../../src/service/lists/list-uploads.js';
import { LeaseKeeper } from '../../src/service/leases/lease-keeper.js';
import { createLogger } from '../../src/logger.js';
import { describeOnEveryBackend, openDatabase } from '../backends.js';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { until } from '../until.js';

/** More than two of the import's 5,000-entry chunks. */
const ROWS = 12_500;
/** Rows whose home address is not an address (bad rows): before and after the node's death. */
const BAD = new Set([10, 4_000, 9_000, 12_000]);
const LEASE_MS = 300;

/** Two columns that both hold addresses: the upload waits for its owner to pick one. */
function twoAddressColumns(): { csv: string; home: string[]; badLines: number[] } {
  const lines = ['work email,home email'];
  const home: string[] = [];
  const badLines: number[] = [];
  for (let i = 0; i < ROWS; i++) {
    const address = BAD.has(i) ? `not an address ${i}` : `person${i}@home${i % 40}.example`;
    // An invalid address is still an entry (a batch makes it a `rejected` item), and a bad row.
    if (BAD.has(i)) badLines.push(i + 2);
    home.push(address);
    lines.push(`person${i}@work.example,${address}`);
  }
  return { csv: `${lines.join('\n')}\n`, home, badLines };
}

/** The lists role of a node that freezes: its second chunk of entries reaches the store only once `frozen` resolves. */
function freezingAtSecondChunk(lists: ListsRole, frozen: Promise<void>): ListsRole {
  let appends = 0;
  return {
    ...lists,
    appendListEntries: async (...args) => {
      if (++appends === 2) await frozen;
      return lists.appendListEntries(...args);
    },
  };
}

function cases(open: () => Promise<{ backend: Backend; drop(): Promise<void> }>): void {
  test('another node finishes the import from the stored file: every address once, in order, bad rows once; the frozen node stops', async () => {
    const { backend, drop } = await open();
    let wake!: () => void;
    const frozen = new Promise<void>((resolve) => (wake = resolve));
    try {
      const account = await backend.accounts.createAccount({ name: `resume-${process.pid}-${Date.now()}`, credits: 0, now: new Date() });
      assert.ok(account);
      const file = twoAddressColumns();

      const warnings: string[] = [];
      const log = createLogger('warn', new Writable({ write: (chunk: Buffer, _encoding, done) => (warnings.push(...chunk.toString().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { msg: string }).msg)), done()) }));
      // Its keeper is never started: frozen, it renews nothing.
      const firstNode = new ListUploads({ lists: freezingAtSecondChunk(backend.lists, frozen), listFiles: backend.listFiles, leases: backend.leases, leaseMs: LEASE_MS, log });
      const uploaded = await firstNode.upload({ accountId: account.id, uploadedBy: 'ann@example.com', fileName: 'two.csv', name: null, stream: Readable.from([Buffer.from(file.csv)]) });
      assert.equal(uploaded.kind, 'needs_column');
      const listId = uploaded.list.id;
      const choices = (await backend.listFiles.getFile(account.id, listId))?.columnChoices ?? [];
      const home = choices.find((c) => c.label === 'home email');
      assert.ok(home, JSON.stringify(choices));
      assert.equal(await firstNode.chooseColumn(account.id, listId, home.index), true);
      await until('the first chunk to be in', async () => ((await backend.lists.getList(account.id, listId))?.entries === 5_000 ? true : null));

      // The lease lapses: the second node's clock is past it (an injected clock, not a sleep).
      const later = () => new Date(Date.now() + LEASE_MS * 2);
      // Ending lapsed imports leaves this one to a serving node.
      assert.equal(await backend.leases.endLapsed('listImport', later()), 0);
      // The second node's keeper ticks when the test says so.
      const keeper = new LeaseKeeper({ leases: backend.leases, leaseMs: 60_000, owner: 'second#1', clock: { now: later, every: () => () => undefined }, log });
      const secondNode = new ListUploads({ lists: backend.lists, listFiles: backend.listFiles, leases: backend.leases, keeper, now: later });
      secondNode.start();
      await keeper.tick();
      assert.equal(keeper.holds('listImport', listId), true, 'taken over by the second node');
      const third = await backend.leases.takeLapsed('listImport', { owner: 'third#1', now: later(), until: new Date(Date.now() + 60_000), limit: 10 });
      assert.deepEqual(third, [], 'taken over once');
      const ready = await until('the list to be ready', async () => {
        const list = await backend.lists.getList(account.id, listId);
        return list?.state === 'ready' ? list : null;
      });
      assert.equal(ready.entries, file.home.length);
      const entries = (await backend.lists.readListSlice(listId, 0, ROWS)).map((e) => e.email);
      assert.deepEqual(entries, file.home, 'every address once, in file order');
      const stored = await backend.listFiles.getFile(account.id, listId);
      assert.equal(stored?.badRows, file.badLines.length, 'bad rows counted once');
      assert.deepEqual((await backend.listFiles.badRows(listId, 100)).map((r) => r.line), file.badLines);
      assert.equal(stored?.error, null);

      // The first node wakes up: its chunk is refused (the list moved on), and the list stays as it is.
      wake();
      await until('the frozen node hears that its import was taken over', () => warnings.includes('a list import was taken over by another run; this one stops'));
      const after = await backend.lists.getList(account.id, listId);
      assert.deepEqual([after?.state, after?.entries], ['ready', file.home.length]);
      assert.equal((await backend.listFiles.getFile(account.id, listId))?.error, null);
    } finally {
      wake();
      await backend.close();
      await drop();
    }
  });
}

describeOnEveryBackend('an uploaded list whose import node dies', (name) => {
  cases(async () => {
    const db = await openDatabase(name);
    return { backend: await openBackend(db.url), drop: db.drop };
  });
});

describe('an uploaded list whose import node dies, and a serving process (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'presend-upload-resume-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a serving process that starts takes such an import over by itself', async () => {
    const url = `sqlite:${join(dir, 'serve.db')}`;
    const backend = await openBackend(url);
    let wake!: () => void;
    const frozen = new Promise<void>((resolve) => (wake = resolve));
    let h: Harness | null = null;
    try {
      const account = await backend.accounts.createAccount({ name: 'served', credits: 0, now: new Date() });
      assert.ok(account);
      const file = twoAddressColumns();
      const firstNode = new ListUploads({ lists: freezingAtSecondChunk(backend.lists, frozen), listFiles: backend.listFiles, leases: backend.leases, leaseMs: LEASE_MS });
      const uploaded = await firstNode.upload({ accountId: account.id, uploadedBy: 'ann@example.com', fileName: 'two.csv', name: null, stream: Readable.from([Buffer.from(file.csv)]) });
      const listId = uploaded.list.id;
      const home = (await backend.listFiles.getFile(account.id, listId))?.columnChoices?.find((c) => c.label === 'home email');
      assert.ok(home);
      assert.equal(await firstNode.chooseColumn(account.id, listId, home.index), true);
      await until('the first chunk to be in', async () => ((await backend.lists.getList(account.id, listId))?.entries === 5_000 ? true : null));
      // Kept: `presend serve` reads the wall clock, so the lease must lapse in real time.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2));

      // `presend serve` starting on the same store: its lease keeper's first round finds the import.
      h = await startHarness({ env: { PRESEND_DATABASE_URL: url } });
      const ready = await until('the list to be ready', async () => {
        const list = await backend.lists.getList(account.id, listId);
        return list?.state === 'ready' ? list : null;
      });
      assert.equal(ready.entries, file.home.length);
      assert.deepEqual((await backend.lists.readListSlice(listId, 0, ROWS)).map((e) => e.email), file.home);
    } finally {
      wake();
      await h?.close();
      await backend.close();
    }
  });
});

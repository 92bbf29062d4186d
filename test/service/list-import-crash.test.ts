/**
 * kill -9 during `presend lists import` (issue #12, finding 6), as processes: the import is
 * killed mid-way; the list must not stay `importing` for ever. Its lease lapses, the next start
 * (here `presend lists list`, and `presend serve` alike) marks it failed, `presend purge` deletes
 * its entries, and `presend lists delete` removes it (asking first, like `keys revoke`).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { exited, presend, spawnCli } from './processes.js';
import { until } from '../until.js';

const ROWS = 600_000;
/** The import lease of the CLI processes here: short, so the test need not wait a minute. */
const LEASE_MS = 1_000;

let dir: string;
let env: Record<string, string>;
let dbPath: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'presend-list-crash-'));
  dbPath = join(dir, 'presend.db');
  env = { PRESEND_DATABASE_URL: `sqlite:${dbPath}`, PRESEND_WORKER_LEASE_MS: String(LEASE_MS) };
  const created = await presend(['accounts', 'create', 'acme', '--credits', '0'], env);
  assert.equal(created.code, 0, created.stderr);
  writeFileSync(join(dir, 'big.csv'), `email\n${Array.from({ length: ROWS }, (_, i) => `person${i}@example${i % 100}.com`).join('\n')}\n`);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function lists(): Array<{ id: string; state: string; entries: number; stored: number }> {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare('SELECT id, state, entries, (SELECT COUNT(*) FROM list_entries e WHERE e.list_id = l.id) AS stored FROM lists l').all() as Array<{
      id: string;
      state: string;
      entries: number;
      stored: number;
    }>;
  } finally {
    db.close();
  }
}

test('an import killed with SIGKILL ends failed at the next start; lists list shows it, purge drops its entries, lists delete removes it', async () => {
  const importing = spawnCli(['lists', 'import', join(dir, 'big.csv'), '--account', 'acme', '--name', 'killed'], env);
  // Killed once some chunks are in, well before its end.
  await until('the import has 20,000 entries in', () => {
    const found = lists()[0];
    if (found && found.entries >= 20_000) return true;
    assert.equal(importing.exitCode, null, 'the import ended before it could be killed');
    return false;
  }, 60_000, 20);
  importing.kill('SIGKILL');
  await exited(importing);
  const [left] = lists();
  assert.ok(left);
  assert.equal(left.state, 'importing', 'killed mid-way');
  assert.ok(left.entries < ROWS, `killed before its end (${left.entries} of ${ROWS})`);

  // Kept: the lease lapsing on the wall clock is what the next start must see; the CLI processes have no clock to inject.
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 200));
  const listed = await presend(['lists', 'list', '--account', 'acme', '--json'], env);
  assert.equal(listed.code, 0, listed.stderr);
  const shown = JSON.parse(listed.stdout) as Array<{ id: string; state: string; entries: number; name: string }>;
  assert.deepEqual(
    shown.map((l) => [l.id, l.state, l.name]),
    [[left.id, 'failed', 'killed']],
  );
  assert.ok((lists()[0]?.stored ?? 0) > 0, 'the entries are still there before the purge');

  const purged = await presend(['purge', '--json'], env);
  assert.equal(purged.code, 0, purged.stderr);
  assert.equal((JSON.parse(purged.stdout) as { failedLists: number }).failedLists, 1);
  assert.equal(lists()[0]?.stored, 0, 'purge deleted the failed import’s entries');
  assert.equal(lists()[0]?.state, 'failed', 'the failed list itself stays (shown to its owner) until it is past retention');

  // A new import of the same file completes.
  const again = await presend(['lists', 'import', join(dir, 'big.csv'), '--account', 'acme', '--name', 'again', '--json'], env);
  assert.equal(again.code, 0, again.stderr);
  const completed = JSON.parse(again.stdout) as { id: string; state: string; entries: number };
  assert.equal(completed.state, 'ready');
  assert.equal(completed.entries, ROWS);

  // Delete asks first: without a terminal and without --yes it refuses (exit 2) and deletes nothing.
  const refused = await presend(['lists', 'delete', left.id, '--account', 'acme'], env);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /not deleting without confirmation: .* pass --yes/);
  assert.equal(lists().length, 2);
  // Another account's name never reaches this list.
  assert.equal((await presend(['accounts', 'create', 'other'], env)).code, 0);
  const foreign = await presend(['lists', 'delete', left.id, '--account', 'other', '--yes'], env);
  assert.equal(foreign.code, 1);
  assert.match(foreign.stderr, /has no list/);

  for (const id of [left.id, completed.id]) {
    const deleted = await presend(['lists', 'delete', id, '--account', 'acme', '--yes', '--json'], env);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(JSON.parse(deleted.stdout), { deleted: true, id });
  }
  assert.deepEqual(lists(), []);
  const empty = await presend(['lists', 'list', '--account', 'acme', '--json'], env);
  assert.deepEqual(JSON.parse(empty.stdout), []);
});

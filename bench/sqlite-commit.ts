/**
 * What one SQLite write transaction costs on this machine's disk, with the store's settings
 * (WAL, synchronous = NORMAL) and, for contrast, synchronous = OFF:
 *   node --import tsx bench/sqlite-commit.ts
 * Evidence for the API and batch analyses in BENCHMARKS.md (each /v1/verify is two write
 * transactions; each batch item one).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const N = 10_000;
const dir = mkdtempSync(join(tmpdir(), 'presend-sqlite-commit-'));
try {
  for (const synchronous of ['NORMAL', 'OFF']) {
    const db = new Database(join(dir, `${synchronous}.db`));
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
    const payload = 'x'.repeat(500);
    const write = db.transaction((i: number) => insert.run(`${synchronous}-${i}`, payload));
    const started = performance.now();
    for (let i = 0; i < N; i++) write.immediate(i);
    const perTx = ((performance.now() - started) * 1000) / N;
    process.stdout.write(`WAL, synchronous = ${synchronous}: ${perTx.toFixed(0)} µs per write transaction (BEGIN IMMEDIATE, one 500-byte INSERT, COMMIT)\n`);
    db.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

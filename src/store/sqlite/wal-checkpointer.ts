/**
 * Serves every role: WAL checkpoints (SQLite). WAL checkpoints on a thread of their own. By default SQLite checkpoints inside the commit
 * that crosses 1,000 WAL pages: the copy into the database file and its fsync then run on the
 * event loop, in the middle of a request — about a third of the cost of a small write
 * transaction here (BENCHMARKS.md §3). A long-running process (`presend serve`, `presend
 * worker`) hands that work to a worker thread with its own connection, which runs PASSIVE
 * checkpoints (they never block the writer) every `intervalMs`. The serving connection keeps
 * a high auto-checkpoint threshold as a safety net, so the WAL stays bounded even if the
 * thread falls behind or dies.
 *
 * Under sustained writes (a batch of a million) the WAL is never reset: it restarts only when a
 * writer begins with every frame copied back, and a passive checkpoint never catches up with
 * commits that keep coming. So it grows until the safety net, and past it every commit ran a
 * checkpoint on the event loop: 60–120 ms stalls, ~20 a minute (BENCHMARKS.md §8, /healthz p99
 * 120 ms). The net is therefore high (≈ 400 MB of WAL, reached by about a million results
 * written without a pause), and once writes pause and the WAL restarts, the file is cut back
 * to WAL_KEPT_BYTES.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { SqliteDb } from './database.js';

/** Safety net on the serving connection: ≈ 400 MB of WAL with 4 KiB pages. */
const FALLBACK_AUTOCHECKPOINT_PAGES = 100_000;
/** What a restarted WAL file is truncated to (PRAGMA journal_size_limit). */
const WAL_KEPT_BYTES = 64 * 1024 * 1024;
const DEFAULT_INTERVAL_MS = 100;

// CommonJS, evaluated in the thread; better-sqlite3 is loaded from the path this module resolves.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: next tick */ } };
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(db: SqliteDb, intervalMs = DEFAULT_INTERVAL_MS) {
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    db.pragma(`journal_size_limit = ${WAL_KEPT_BYTES}`);
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { module, path: db.name, intervalMs } });
    // Not a reason to keep the process alive, and a failure here only loses the optimisation.
    this.worker.unref();
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', () => resolve());
      this.worker.once('error', () => {
        if (db.open) db.pragma('wal_autocheckpoint = 1000'); // back to SQLite's own checkpoints
      });
    });
  }

  /** Runs a last checkpoint and ends the thread. */
  async close(): Promise<void> {
    this.worker.ref(); // wait for it now, even if nothing else keeps the process alive
    this.worker.postMessage('close');
    await this.exited;
  }
}

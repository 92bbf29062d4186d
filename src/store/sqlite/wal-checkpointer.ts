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
 * written without a pause); at the net the serving connection's checkpoint finds the frames
 * already copied by the thread, and its next write restarts the log.
 *
 * The serving connection never shrinks the WAL file: a restart just writes over it from the
 * start. Shrinking it there (`journal_size_limit`) ran an ftruncate on the event loop at every
 * restart, 330–470 ms each on an ext4 mounted with `discard` (`perf trace`, once every ~16 s of
 * a million-address batch: the /healthz max). The thread shrinks it instead, once writes have
 * paused (no new frame for IDLE_TICKS_BEFORE_TRUNCATE ticks): a TRUNCATE checkpoint, which
 * holds the write lock only while the file is cut, at a moment nothing was writing.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { SqliteDb } from './database.js';

/** Safety net on the serving connection: ≈ 400 MB of WAL with 4 KiB pages. */
const FALLBACK_AUTOCHECKPOINT_PAGES = 100_000;
const DEFAULT_INTERVAL_MS = 100;
/** Ticks without a new WAL frame before the thread cuts the file back (30 s at the default interval). */
const IDLE_TICKS_BEFORE_TRUNCATE = 300;

// CommonJS, evaluated in the thread; better-sqlite3 is loaded from the path this module resolves.
// A PASSIVE checkpoint answers [busy, frames in the WAL, frames copied back]; the WAL file is cut
// only when it holds frames, all of them copied, and their count has not moved for the idle ticks.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
let lastFrames = -1;
let idleTicks = 0;
const checkpoint = () => {
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    const frames = r.log;
    idleTicks = frames === lastFrames ? idleTicks + 1 : 0;
    lastFrames = frames;
    if (frames > 0 && r.checkpointed === frames && idleTicks >= workerData.idleTicks) {
      db.pragma('wal_checkpoint(TRUNCATE)');
      lastFrames = -1;
      idleTicks = 0;
    }
  } catch { /* busy or closing: next tick */ }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(db: SqliteDb, intervalMs = DEFAULT_INTERVAL_MS, idleTicks = IDLE_TICKS_BEFORE_TRUNCATE) {
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    db.pragma('journal_size_limit = -1'); // SQLite's default, said here: the thread shrinks the file, not the event loop
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { module, path: db.name, intervalMs, idleTicks } });
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

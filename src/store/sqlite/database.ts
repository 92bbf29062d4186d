/**
 * Serves every role: the query interface on SQLite. The query interface (src/store/sql.ts) on one SQLite file: one better-sqlite3 connection in
 * WAL mode (readers never block the writer), a busy timeout so a second process (`presend
 * worker` next to `presend serve`) waits instead of failing, prepared statements cached by
 * text, numbered migrations under an exclusive write lock, and group commit.
 *
 * Group commit: write transactions issued in the same turn of the event loop share one
 * transaction, each inside its own savepoint, so one's failure rolls back only itself. A commit
 * costs far more than the statements of one API call (BENCHMARKS.md §3); sharing it lets
 * concurrent requests and a worker's stream of results pay it once. Callers are answered only
 * after the commit. better-sqlite3 is synchronous, so a transaction script's awaits are
 * microtasks; a lock keeps any other statement of this process out of an open transaction.
 * So a shared transaction blocks the event loop for the sum of its writes: once they have taken
 * GROUP_BUDGET_MS it commits, and the writes still queued go into the next turn's transaction
 * (a list batch's fill, a worker's results and its claims arriving together held the loop for
 * 150–300 ms in one turn; BENCHMARKS.md §6).
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { listMigrations } from '../migrations.js';
import { ListParam, Rollback } from '../sql.js';
import type { Db, Dialect, Param, Tx } from '../sql.js';
import { storeCall, storeFailure } from '../store-failure.js';

export type SqliteDb = Database.Database;

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  forUpdate: () => '',
  forUpdateSkipLocked: '',
  inList: 'IN (SELECT value FROM json_each(?))',
};

/** `sqlite::memory:` → `:memory:`; `sqlite:./data/presend.db` → `./data/presend.db`. */
export function sqlitePath(databaseUrl: string): string {
  if (!databaseUrl.startsWith('sqlite:')) throw new Error(`not a sqlite URL: ${databaseUrl}`);
  const rest = databaseUrl.slice('sqlite:'.length);
  if (rest === ':memory:' || rest === '') return ':memory:';
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

function openSqlite(databaseUrl: string): SqliteDb {
  const path = sqlitePath(databaseUrl);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Parameters as better-sqlite3 binds them (an array binds its elements in order); copied only when one needs converting. */
function bind(params: readonly Param[]): unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    let v: unknown = p;
    if (p instanceof Date) v = p.toISOString();
    else if (typeof p === 'boolean') v = p ? 1 : 0;
    else if (p instanceof ListParam) v = JSON.stringify(p.values);
    else if (out === null) continue;
    out ??= params.slice();
    out[i] = v;
  }
  return out ?? (params as unknown[]);
}

/** Time the writes of one shared transaction may take before it commits and leaves the rest to the next turn. */
const GROUP_BUDGET_MS = 8;

interface PendingWrite {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class SqliteDatabase implements Db {
  readonly dialect = sqliteDialect;
  readonly raw: SqliteDb;
  private readonly statements = new Map<string, Database.Statement>();
  /** Statements inside the open transaction: no lock to wait for, answered synchronously. */
  private readonly inside: { dialect: Dialect; all<R>(sql: string, params?: readonly Param[]): R[]; get<R>(sql: string, params?: readonly Param[]): R | undefined; run(sql: string, params?: readonly Param[]): number };
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  /** Set while a transaction is open; statements from outside it wait for this. */
  private busy: Promise<void> | null = null;

  constructor(databaseUrl: string) {
    this.raw = openSqlite(databaseUrl);
    // Every error better-sqlite3 raises (SQLITE_FULL, SQLITE_IOERR, a table that is gone) is the database's: a StoreFailure.
    this.inside = {
      dialect: sqliteDialect,
      all: <R>(sql: string, params: readonly Param[] = []) => storeCall(() => this.stmt(sql).all(bind(params)) as R[]),
      get: <R>(sql: string, params: readonly Param[] = []) => storeCall(() => this.stmt(sql).get(bind(params)) as R | undefined),
      run: (sql: string, params: readonly Param[] = []) => storeCall(() => this.stmt(sql).run(bind(params)).changes),
    };
  }

  stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.raw.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  async all<R>(sql: string, params: readonly Param[] = []): Promise<R[]> {
    while (this.busy) await this.busy;
    return this.inside.all<R>(sql, params);
  }

  async get<R>(sql: string, params: readonly Param[] = []): Promise<R | undefined> {
    while (this.busy) await this.busy;
    return this.inside.get<R>(sql, params);
  }

  async run(sql: string, params: readonly Param[] = []): Promise<number> {
    while (this.busy) await this.busy;
    return this.inside.run(sql, params);
  }

  /** Runs `fn` with the connection to itself: nothing else of this process runs a statement meanwhile. */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.busy) await this.busy;
    let done!: () => void;
    this.busy = new Promise((resolve) => (done = resolve));
    try {
      return await fn();
    } finally {
      this.busy = null;
      done();
    }
  }

  write<T>(fn: (tx: Tx) => Promise<T | Rollback<T>>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Runs and commits every queued write (BEGIN IMMEDIATE: two processes never deadlock on a lock upgrade). */
  async flush(): Promise<void> {
    this.flushScheduled = false;
    const queued = this.pending;
    this.pending = [];
    if (queued.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    const started = performance.now();
    try {
      await this.exclusive(async () => {
        this.stmt('BEGIN IMMEDIATE').run();
        try {
          for (const op of queued) {
            if (outcomes.length > 0 && performance.now() - started >= GROUP_BUDGET_MS) break;
            outcomes.push(await this.savepoint(op.fn));
          }
          this.stmt('COMMIT').run();
        } catch (err) {
          if (this.raw.inTransaction) this.stmt('ROLLBACK').run();
          throw err;
        }
      });
    } catch (error) {
      // BEGIN, a savepoint or the commit failed (every write's own errors are its outcome): nothing was written.
      const failure = storeFailure(error);
      for (const op of queued) op.reject(failure);
      return;
    }
    const ops = queued.slice(0, outcomes.length);
    // The writes past the budget go first into the next turn's transaction.
    this.requeue(queued.slice(outcomes.length));
    ops.forEach((op, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) op.resolve(outcome.value);
      else op.reject(outcome?.error);
    });
  }

  private requeue(rest: PendingWrite[]): void {
    if (rest.length === 0) return;
    this.pending = rest.concat(this.pending);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  private async savepoint(fn: (tx: Tx) => Promise<unknown>): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
    this.stmt('SAVEPOINT op').run();
    try {
      const out = await fn(this.inside);
      if (out instanceof Rollback) {
        this.stmt('ROLLBACK TO op').run();
        this.stmt('RELEASE op').run();
        return { ok: true, value: out.value };
      }
      this.stmt('RELEASE op').run();
      return { ok: true, value: out };
    } catch (error) {
      this.stmt('ROLLBACK TO op').run();
      this.stmt('RELEASE op').run();
      return { ok: false, error };
    }
  }

  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      this.inside.run('BEGIN DEFERRED');
      try {
        return await fn(this.inside);
      } finally {
        this.inside.run('COMMIT');
      }
    });
  }

  async migrate(): Promise<void> {
    await this.exclusive(async () => {
      const db = this.raw;
      db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      db.transaction(() => {
        const done = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version));
        for (const m of listMigrations('sqlite')) {
          if (done.has(m.version)) continue;
          db.exec(m.sql);
          db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
        }
      }).immediate();
      // A migration may change tables that cached statements were prepared against.
      this.statements.clear();
    });
  }

  async close(): Promise<void> {
    while (this.busy || this.pending.length > 0) {
      await this.busy;
      await this.flush(); // writes queued for the group commit are committed, not dropped
    }
    this.raw.close();
  }
}

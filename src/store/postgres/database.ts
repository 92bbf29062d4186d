/**
 * Serves every role: the query interface on PostgreSQL. The query interface (src/store/sql.ts) on PostgreSQL: one pg Pool, type parsers that return
 * what the roles promise (timestamps as ISO-8601 strings, counts as numbers), transactions with
 * retry on serialization failures and deadlocks, and numbered migrations applied under a session
 * advisory lock so several nodes starting at once apply each migration exactly once.
 */
import pg from 'pg';
import type { Logger } from '../../logger.js';
import { listMigrations } from '../migrations.js';
import { ListParam, Rollback } from '../sql.js';
import type { Db, Dialect, Param, Tx } from '../sql.js';
import { storeFailure } from '../store-failure.js';

const { Pool, types } = pg;

/** Arbitrary constant: the advisory lock key every Presend node takes while migrating. */
export const MIGRATION_LOCK_KEY = 0x70726573; // "pres"

const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const INT8 = 20;
const NUMERIC = 1700;

/** Per-pool parsers: the process-wide pg defaults stay untouched for other pg users (pg-boss). */
const storeTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ || oid === TIMESTAMP) return (v: string) => new Date(oid === TIMESTAMP ? `${v}Z` : v).toISOString();
    // Counts and credit totals stay far below 2^53.
    if (oid === INT8 || oid === NUMERIC) return (v: string) => Number(v);
    return types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export interface PoolSettings {
  /** Connections this pool may hold (config.databasePoolSize / sharedPoolSize). */
  max: number;
  applicationName?: string;
  /**
   * Commit without waiting for the WAL flush (synchronous_commit = off). Only for state a
   * database crash may lose harmlessly: shared engine state (MX session slots, which expire
   * anyway, and cached domain facts), never the store's items, results or credits.
   */
  asyncCommit?: boolean;
  /** Hears an idle client dropped by the server (restart, failover): the pool replaces it. */
  log: Logger;
}

export function createPool(databaseUrl: string, settings: PoolSettings): pg.Pool {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: settings.max,
    types: storeTypes,
    application_name: settings.applicationName ?? 'presend',
    idleTimeoutMillis: 30_000,
    ...(settings.asyncCommit ? { options: '-c synchronous_commit=off' } : {}),
  });
  // An idle client that loses its server (restart, failover) must not crash the process; the pool opens another.
  // Only what says why: pg hangs the whole client (its settings and buffers) on the error.
  pool.on('error', (err) =>
    settings.log.warn({ err: { message: err.message, code: (err as { code?: string }).code }, pool: settings.applicationName ?? 'presend' }, 'an idle database connection was lost'),
  );
  return pool;
}

const pgDialect: Dialect = {
  name: 'postgres',
  forUpdate: (of?: string) => (of ? ` FOR UPDATE OF ${of}` : ' FOR UPDATE'),
  forUpdateSkipLocked: ' FOR UPDATE SKIP LOCKED',
  inList: '= ANY(?)',
};

/** `?` placeholders → `$1, $2, …` (no statement here has a `?` inside a string literal). */
const numbered = new Map<string, string>();
function toPg(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    numbered.set(sql, text);
  }
  return text;
}

function bind(params: readonly Param[]): unknown[] {
  return params.map((p) => (p instanceof ListParam ? p.values : p));
}

/**
 * The query interface on one client (a transaction) or on the pool (single statements). Every
 * error pg raises (a SQLSTATE from the server, a refused or lost connection) is the database's:
 * a StoreFailure, which keeps the SQLSTATE as its `code`.
 */
function queries(on: Pick<pg.Pool, 'query'>): Tx & Pick<Db, 'all' | 'get' | 'run'> {
  const query = async (sql: string, params: readonly Param[]) => {
    try {
      return await on.query(toPg(sql), bind(params));
    } catch (err) {
      throw storeFailure(err);
    }
  };
  return {
    dialect: pgDialect,
    all: async <R>(sql: string, params: readonly Param[] = []) => (await query(sql, params)).rows as R[],
    get: async <R>(sql: string, params: readonly Param[] = []) => (await query(sql, params)).rows[0] as R | undefined,
    run: async (sql: string, params: readonly Param[] = []) => (await query(sql, params)).rowCount ?? 0,
  };
}

/** BEGIN, COMMIT, ROLLBACK: a failure is the database's. */
async function command(client: pg.PoolClient, text: string): Promise<void> {
  try {
    await client.query(text);
  } catch (err) {
    throw storeFailure(err);
  }
}

/**
 * A client out of the pool, listened to while it is out. The pool hears its idle clients only:
 * one that loses its server between two statements of a transaction (a restart, a failover, an
 * administrator's pg_terminate_backend) would emit an 'error' nobody hears, and an unheard
 * 'error' event ends the process. `release` gives it back, destroyed when it was lost.
 */
async function checkout(pool: pg.Pool): Promise<{ client: pg.PoolClient; release(broken?: unknown): void }> {
  const client = await pool.connect().catch((err: unknown) => {
    throw storeFailure(err);
  });
  let lost: Error | undefined;
  const onError = (err: Error): void => {
    lost = err; // the statement in flight, if any, fails with it too; the caller hears that
  };
  client.on('error', onError);
  return {
    client,
    release(broken?: unknown) {
      client.removeListener('error', onError);
      const cause = broken instanceof Error ? broken : lost;
      client.release(cause);
    },
  };
}

/** SQLSTATEs worth retrying the whole transaction for: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);

export class PgDatabase implements Db {
  readonly dialect = pgDialect;
  private readonly single: Pick<Db, 'all' | 'get' | 'run'>;
  private closed: Promise<void> | null = null;

  constructor(readonly pool: pg.Pool) {
    this.single = queries(pool);
  }

  all<R>(sql: string, params?: readonly Param[]): Promise<R[]> {
    return this.single.all<R>(sql, params);
  }
  get<R>(sql: string, params?: readonly Param[]): Promise<R | undefined> {
    return this.single.get<R>(sql, params);
  }
  run(sql: string, params?: readonly Param[]): Promise<number> {
    return this.single.run(sql, params);
  }

  /** READ COMMITTED; a `Rollback` rolls back and unwraps its value. Retryable failures rerun the whole unit, so nothing half-applied survives. */
  write<T>(fn: (tx: Tx) => Promise<T | Rollback<T>>): Promise<T> {
    return this.transaction('BEGIN', fn);
  }

  /** REPEATABLE READ, READ ONLY: every read of `fn` sees one snapshot. */
  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn);
  }

  private async transaction<T>(begin: string, fn: (tx: Tx) => Promise<T | Rollback<T>>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { client, release } = await checkout(this.pool);
      let broken: unknown;
      try {
        await command(client, begin);
        const out = await fn(queries(client));
        if (out instanceof Rollback) {
          await command(client, 'ROLLBACK');
          return out.value;
        }
        await command(client, 'COMMIT');
        return out;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackFailed) {
          broken = rollbackFailed; // the connection is gone: do not hand it back to the pool
        }
        const code = (err as { code?: string }).code;
        if (code && RETRYABLE.has(code) && attempt < 5) continue;
        throw err;
      } finally {
        release(broken);
      }
    }
  }

  close(): Promise<void> {
    this.closed ??= this.pool.end();
    return this.closed;
  }

  /**
   * Applies pending migrations. The advisory lock is held on one session for the whole run, so
   * a second node waits here and then finds nothing left to do. Each migration commits with its
   * row in schema_migrations.
   */
  async migrate(): Promise<void> {
    const { client, release } = await checkout(this.pool);
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const m of listMigrations('postgres')) {
        if (done.has(m.version)) continue;
        try {
          await client.query('BEGIN');
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${m.name} failed: ${String(err)}`, { cause: err });
        }
      }
    } finally {
      // Ending the session releases the advisory lock too, whatever state the connection is in.
      release(new Error('the migration session ends here'));
    }
  }
}

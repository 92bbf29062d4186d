/**
 * Opening a PostgreSQL store: one pg Pool, type parsers that return what the Store contract
 * promises (timestamps as ISO-8601 strings, counts as numbers), a transaction helper, and
 * numbered migrations applied under a session advisory lock so several nodes starting at
 * once apply each migration exactly once.
 */
import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import { listMigrations } from '../migrations.js';

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
  // An idle client that loses its server (restart, failover) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** A connection inside a transaction; `q` returns the rows. */
export interface Tx {
  q<R extends QueryResultRow = QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  one<R extends QueryResultRow = QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<R | undefined>;
  count(sql: string, params?: readonly unknown[]): Promise<number>;
}

function wrap(client: PoolClient): Tx {
  return {
    q: async <R extends QueryResultRow>(sql: string, params: readonly unknown[] = []) => (await client.query<R>(sql, params as unknown[])).rows,
    one: async <R extends QueryResultRow>(sql: string, params: readonly unknown[] = []): Promise<R | undefined> =>
      (await client.query<R>(sql, params as unknown[])).rows[0],
    count: async (sql: string, params: readonly unknown[] = []) => (await client.query(sql, params as unknown[])).rowCount ?? 0,
  };
}

/** Outcome-as-data: `rollback` undoes the transaction but still returns a value to the caller. */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

/** SQLSTATEs worth retrying the whole transaction for. */
const RETRYABLE = new Set(['40001', '40P01']);

export class PgDatabase {
  constructor(readonly pool: pg.Pool) {}

  /**
   * Runs `fn` in one transaction (READ COMMITTED unless told otherwise). Returning a
   * `Rollback` rolls back and unwraps its value. Serialization failures and deadlocks are
   * retried a few times: the whole unit reruns, so nothing half-applied survives.
   */
  async tx<T>(fn: (tx: Tx) => Promise<T | Rollback<T>>, options: { isolation?: 'repeatable read'; readOnly?: boolean } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      try {
        const mode = [options.isolation ? `ISOLATION LEVEL ${options.isolation.toUpperCase()}` : '', options.readOnly ? 'READ ONLY' : ''].join(' ');
        await client.query(`BEGIN ${mode}`);
        const out = await fn(wrap(client));
        if (out instanceof Rollback) {
          await client.query('ROLLBACK');
          return out.value;
        }
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        const code = (err as { code?: string }).code;
        if (code && RETRYABLE.has(code) && attempt < 5) continue;
        throw err;
      } finally {
        client.release();
      }
    }
  }

  /** One statement outside an explicit transaction. */
  async q<R extends QueryResultRow = QueryResultRow>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.pool.query<R>(sql, params as unknown[])).rows;
  }

  async one<R extends QueryResultRow = QueryResultRow>(sql: string, params: readonly unknown[] = []): Promise<R | undefined> {
    return (await this.q<R>(sql, params))[0];
  }

  /**
   * Applies pending migrations. The advisory lock is held on one session for the whole run, so
   * a second node waits here and then finds nothing left to do. Each migration commits with its
   * row in schema_migrations.
   */
  async migrate(): Promise<number> {
    const client = await this.pool.connect();
    let applied = 0;
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
          applied += 1;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new Error(`migration ${m.name} failed: ${String(err)}`, { cause: err });
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
      client.release();
    }
    return applied;
  }
}

/**
 * INTERIM, until step 2 of #11 lands on main: the query interface (src/store/sql.ts) over the
 * connections of the one-piece stores, so the dashboard's roles run on both dialects today.
 * Step 2 brings the real implementations (src/store/{sqlite,postgres}/database.ts); this file
 * goes then.
 */
import type Database from 'better-sqlite3';
import { ListParam, Rollback } from './sql.js';
import type { Db, Dialect, Param, Tx } from './sql.js';
import { Rollback as PgRollback } from './postgres/database.js';
import type { PgDatabase } from './postgres/database.js';

const sqliteDialect: Dialect = { name: 'sqlite', forUpdate: () => '', forUpdateSkipLocked: '', inList: 'IN (SELECT value FROM json_each(?))' };
const pgDialect: Dialect = {
  name: 'postgres',
  forUpdate: (of?: string) => (of ? ` FOR UPDATE OF ${of}` : ' FOR UPDATE'),
  forUpdateSkipLocked: ' FOR UPDATE SKIP LOCKED',
  inList: '= ANY(?)',
};

export function sqliteDb(raw: Database.Database): Db {
  const bind = (params: readonly Param[]) =>
    params.map((p) => (p instanceof Date ? p.toISOString() : typeof p === 'boolean' ? (p ? 1 : 0) : p instanceof ListParam ? JSON.stringify(p.values) : p));
  const tx: Tx = {
    dialect: sqliteDialect,
    all: async <R>(sql: string, params: readonly Param[] = []) => raw.prepare(sql).all(...bind(params)) as R[],
    get: async <R>(sql: string, params: readonly Param[] = []) => raw.prepare(sql).get(...bind(params)) as R | undefined,
    run: async (sql: string, params: readonly Param[] = []) => raw.prepare(sql).run(...bind(params)).changes,
  };
  // better-sqlite3 is synchronous and the scripts await only these statements, so a transaction
  // runs to its end within one turn of the event loop: nothing else of this process interleaves.
  const transaction = async <T>(begin: string, fn: (tx: Tx) => Promise<T | Rollback<T>>): Promise<T> => {
    raw.exec(begin);
    try {
      const out = await fn(tx);
      if (out instanceof Rollback) {
        raw.exec('ROLLBACK');
        return out.value;
      }
      raw.exec('COMMIT');
      return out;
    } catch (err) {
      if (raw.inTransaction) raw.exec('ROLLBACK');
      throw err;
    }
  };
  return {
    ...tx,
    write: (fn) => transaction('BEGIN IMMEDIATE', fn),
    read: (fn) => transaction('BEGIN', fn),
    migrate: async () => undefined,
    close: async () => undefined,
  };
}

export function postgresDb(pg: PgDatabase): Db {
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const bind = (params: readonly Param[]) => params.map((p) => (p instanceof ListParam ? p.values : p));
  const on = (q: (sql: string, params: unknown[]) => Promise<unknown[]>, count: (sql: string, params: unknown[]) => Promise<number>): Tx => ({
    dialect: pgDialect,
    all: async <R>(sql: string, params: readonly Param[] = []) => (await q(numbered(sql), bind(params))) as R[],
    get: async <R>(sql: string, params: readonly Param[] = []) => (await q(numbered(sql), bind(params)))[0] as R | undefined,
    run: (sql: string, params: readonly Param[] = []) => count(numbered(sql), bind(params)),
  });
  const single = on(
    (sql, params) => pg.q(sql, params),
    async (sql, params) => (await pg.pool.query(sql, params)).rowCount ?? 0,
  );
  return {
    ...single,
    write: (fn) =>
      pg.tx(async (t) => {
        const out = await fn(on((sql, params) => t.q(sql, params), (sql, params) => t.count(sql, params)));
        return out instanceof Rollback ? new PgRollback(out.value) : out;
      }),
    read: (fn) => pg.tx((t) => fn(on((sql, params) => t.q(sql, params), (sql, params) => t.count(sql, params))), { isolation: 'repeatable read', readOnly: true }),
    migrate: async () => undefined,
    close: async () => undefined,
  };
}

/**
 * Opening a SQLite store file: one connection, WAL (readers never block the writer), a busy
 * timeout so a second process (`presend worker` next to `presend serve`) waits instead of
 * failing, foreign keys on, and numbered migrations applied under an exclusive write lock.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { listMigrations } from '../migrations.js';

export type SqliteDb = Database.Database;

/** `sqlite::memory:` → `:memory:`; `sqlite:./data/presend.db` → `./data/presend.db`. */
export function sqlitePath(databaseUrl: string): string {
  if (!databaseUrl.startsWith('sqlite:')) throw new Error(`not a sqlite URL: ${databaseUrl}`);
  const rest = databaseUrl.slice('sqlite:'.length);
  if (rest === ':memory:' || rest === '') return ':memory:';
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

export function openSqlite(databaseUrl: string): SqliteDb {
  const path = sqlitePath(databaseUrl);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  return db;
}

export function migrateSqlite(db: SqliteDb): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  let applied = 0;
  const apply = db.transaction(() => {
    const done = new Set(
      (db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version),
    );
    for (const m of listMigrations('sqlite')) {
      if (done.has(m.version)) continue;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
      applied += 1;
    }
  });
  apply.immediate();
  return applied;
}

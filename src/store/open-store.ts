/**
 * Opens the store named by a database URL (DESIGN.md §2): `sqlite:PATH`, `sqlite::memory:`
 * or `postgres://…`. The PostgreSQL store is loaded only when asked for, so a SQLite install
 * never touches pg.
 */
import type { Store } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

/** `longRunning`: `presend serve` / `presend worker`, not a one-shot admin command (SQLite then checkpoints in the background). */
export async function openStore(databaseUrl: string, options: { migrate?: boolean; longRunning?: boolean } = {}): Promise<Store> {
  let store: Store;
  if (databaseUrl.startsWith('sqlite:')) {
    store = new SqliteStore(databaseUrl, { longRunning: options.longRunning ?? false });
  } else if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    // Resolved at run time so the build does not require the PostgreSQL store to exist yet.
    const modulePath = './postgres/postgres-store.js';
    const mod = (await import(modulePath)) as { openPostgresStore(url: string): Promise<Store> };
    store = await mod.openPostgresStore(databaseUrl);
  } else {
    throw new Error(`unsupported database URL: ${databaseUrl}`);
  }
  if (options.migrate !== false) await store.migrate();
  return store;
}

/**
 * Serves every role: opens them together. Opens every role of the store named by a database URL (docs/design.md §2): `sqlite:PATH`,
 * `sqlite::memory:` or `postgres://…`. Each dialect's backend is loaded only when asked for:
 * a SQLite install never loads pg, a PostgreSQL node never loads SQLite's native module.
 */
import { defaultConfig } from '../config.js';
import type { Backend } from './backend.js';
import { silentLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import type { BackendConfig } from './backend-config.js';

export interface BackendOptions {
  /** Settings; those not given take their defaults (src/config.ts). */
  config?: Partial<BackendConfig>;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** `presend serve` / `presend worker`, not a one-shot admin command (SQLite then checkpoints in the background). */
  longRunning?: boolean;
  /** Default: a logger that writes nothing. */
  log?: Logger;
}

export function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://');
}

export async function openBackend(databaseUrl: string, options: BackendOptions = {}): Promise<Backend> {
  const config = defaultConfig(options.config);
  const log = (options.log ?? silentLogger).child({ part: 'store' });
  let backend: Backend;
  if (databaseUrl.startsWith('sqlite:')) {
    const { openSqliteBackend } = await import('./sqlite/backend.js');
    backend = openSqliteBackend(databaseUrl, config, { longRunning: options.longRunning ?? false });
  } else if (isPostgresUrl(databaseUrl)) {
    const { openPostgresBackend } = await import('./postgres/backend.js');
    backend = await openPostgresBackend(databaseUrl, config, log);
  } else {
    throw new Error(`unsupported database URL: ${databaseUrl}`);
  }
  if (options.migrate !== false) {
    try {
      await backend.migrate();
    } catch (err) {
      await backend.close();
      throw err;
    }
  }
  return backend;
}

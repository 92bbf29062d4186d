/** Every role on one SQLite file (or in memory): one connection, embedded wake-ups, in-memory engine state. */
import { createMemoryFactsCache, createMemorySessionLimiter, systemClock } from '../../core/index.js';
import type { Backend } from '../backend.js';
import type { BackendConfig } from '../open-backend.js';
import { rolesOf } from '../legacy-roles.js';
import { EmbeddedQueue } from '../../queue/embedded.js';
import { SqliteStore } from './sqlite-store.js';

export function openSqliteBackend(databaseUrl: string, config: BackendConfig, options: { longRunning: boolean }): Backend {
  const store = new SqliteStore(databaseUrl, options);
  const engineState = { limiter: createMemorySessionLimiter(config.maxSessionsPerMx), cache: createMemoryFactsCache(systemClock) };
  return rolesOf(store, new EmbeddedQueue(), engineState, async () => undefined);
}

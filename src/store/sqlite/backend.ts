/** Every role on one SQLite file (or in memory): one connection, embedded wake-ups, in-memory engine state. */
import { createMemoryFactsCache, createMemorySessionLimiter, systemClock } from '../../core/index.js';
import type { Backend } from '../backend.js';
import type { BackendConfig } from '../open-backend.js';
import { rolesOf } from '../legacy-roles.js';
import { EmbeddedQueue } from '../../queue/embedded.js';
import { SqliteStore } from './sqlite-store.js';
import { sqliteDb } from '../interim-db.js';
import { openOwnerRoles } from '../roles/owner-roles.js';

export function openSqliteBackend(databaseUrl: string, config: BackendConfig, options: { longRunning: boolean }): Backend {
  const store = new SqliteStore(databaseUrl, options);
  const engineState = { limiter: createMemorySessionLimiter(config.maxSessionsPerMx), cache: createMemoryFactsCache(systemClock) };
  const owners = openOwnerRoles(sqliteDb(store.connection));
  const keyManagement = {
    ...owners.keyManagement,
    // The store caches active keys by hash; a revocation through another role must drop them.
    revokeKey: async (input: Parameters<typeof owners.keyManagement.revokeKey>[0]) => {
      const revoked = await owners.keyManagement.revokeKey(input);
      store.forgetCachedKeys();
      return revoked;
    },
  };
  return rolesOf(store, new EmbeddedQueue(), engineState, { ...owners, keyManagement }, async () => undefined);
}

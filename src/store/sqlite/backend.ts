/**
 * Serves every role (SQLite). Every role on one SQLite file (or in memory): the shared roles over one connection with this
 * dialect's claim and bulk writes; rate-limit buckets and engine state in memory (one process
 * serves a SQLite store); key lookups cached exactly; wake-ups within the process; WAL
 * checkpoints on a background thread for long-running processes.
 */
import { createMemoryFactsCache, createMemoryPolitenessBudget, createMemoryRoutePauses, createMemorySessionLimiter, systemClock } from '../../core/index.js';
import { EmbeddedWakeUps } from '../../queue/embedded.js';
import type { Backend } from '../backend.js';
import type { BackendConfig } from '../backend-config.js';
import { assembleBackend } from '../roles/index.js';
import { sqliteBulkWrites } from './bulk-writes.js';
import { claimSqlite } from './claim.js';
import { SqliteDatabase } from './database.js';
import { keyCachedRoles } from './key-cache.js';
import { memoryRateLimits } from './rate-limits.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export function openSqliteBackend(databaseUrl: string, config: BackendConfig, options: { longRunning: boolean }): Backend {
  const db = new SqliteDatabase(databaseUrl);
  const checkpointer = options.longRunning && !db.raw.memory ? new WalCheckpointer(db.raw) : null;
  const keyCache = keyCachedRoles(db.raw);
  return assembleBackend(
    db,
    {
      bulk: sqliteBulkWrites,
      claim: claimSqlite,
      // Each transaction runs synchronously on the event loop: groups of results and claims keep one short
      // (BENCHMARKS.md §8). 500 each: at 100 and 250 a 10,000-address batch took 1.6× as long to finalize
      // (benchmark 4, 1,143–1,174 ms against 683–745 ms side by side), at 500 it is back within noise (710 ms).
      resultsPerWrite: 500,
      claimPerWrite: 500,
    },
    {
      kind: 'sqlite',
      rateLimits: memoryRateLimits(),
      engineState: {
        limiter: createMemorySessionLimiter(config.maxSessionsPerMx),
        cache: createMemoryFactsCache(systemClock),
        routePauses: createMemoryRoutePauses(),
        politeness: createMemoryPolitenessBudget(),
      },
      wakeUps: new EmbeddedWakeUps(),
      purgeEngineState: async () => undefined, // in memory: entries expire on their own
      wrapAccounts: keyCache.accounts,
      wrapKeyManagement: keyCache.keyManagement,
      closeMore: async () => checkpointer?.close(),
    },
  );
}

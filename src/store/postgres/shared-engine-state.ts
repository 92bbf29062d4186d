/**
 * Role: engine state (PostgreSQL). The engine's shared state when the store is PostgreSQL (docs/design.md §1): per-MX session slots
 * domain facts, egress route pauses and politeness budgets live in the database, so the politeness limit holds summed over every
 * worker and API node, and a domain's MX set or catch-all status found by one process serves
 * all of them. On SQLite there is nothing to share across hosts: the engine keeps its
 * in-memory defaults.
 *
 * Settings (src/config.ts): mxSlotLeaseMs (how long a dead worker's session slot stays taken),
 * sharedPoolSize (connections for slots and facts).
 */
import type { PresendConfig } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { FactsCache, PolitenessBudget, RoutePauses, SessionLimiter } from '../../core/ports.js';
import { createPool } from './database.js';
import { createPgSessionLimiter } from './limiter.js';
import { createPgFactsCache } from './facts-cache.js';
import { createPgRoutePauses } from './route-pauses.js';
import { createPgPolitenessBudget } from './politeness-budget.js';

export interface SharedEngineState {
  deps: { limiter: SessionLimiter; cache: FactsCache; routePauses: RoutePauses; politeness: PolitenessBudget };
  /** Expired domain facts, MX session slots left behind by dead workers, route pauses lapsed long ago, idle politeness buckets. */
  purgeExpired(): Promise<void>;
  close(): Promise<void>;
}

export function openSharedEngineState(
  databaseUrl: string,
  config: Pick<PresendConfig, 'maxSessionsPerMx' | 'mxSlotLeaseMs' | 'sharedPoolSize'>,
  log: Logger,
): SharedEngineState {
  // Slot and fact writes sit on the path of every new SMTP session: they commit without waiting
  // for the WAL flush. A database crash can lose the last fraction of a second of them: a slot
  // that looks free again for at most one session (leases expire anyway), a fact probed again.
  const pool = createPool(databaseUrl, { max: config.sharedPoolSize, applicationName: 'presend-engine', asyncCommit: true, log });
  const limiter = createPgSessionLimiter(pool, { maxPerHost: config.maxSessionsPerMx, leaseMs: config.mxSlotLeaseMs, log });
  const cache = createPgFactsCache(pool, { log });
  const routePauses = createPgRoutePauses(pool, { log });
  const politeness = createPgPolitenessBudget(pool, { log });
  return {
    deps: { limiter, cache, routePauses, politeness },
    async purgeExpired() {
      await pool.query('DELETE FROM facts_cache WHERE expires_at < clock_timestamp()');
      await pool.query('DELETE FROM mx_session_slots WHERE lease_expires_at < clock_timestamp()');
      await routePauses.purgeLapsed(Date.now());
      await politeness.purgeIdle(Date.now());
    },
    async close() {
      await limiter.close();
      await pool.end();
    },
  };
}

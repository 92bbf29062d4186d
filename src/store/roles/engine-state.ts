/**
 * Role: the engine's shared state. No transaction script of its own: SQLite serves it from the
 * engine's in-memory limiter and cache, PostgreSQL from postgres/limiter.ts and
 * postgres/facts-cache.ts.
 */
import type { FactsCache, PolitenessBudget, RoutePauses, SessionLimiter } from '../../core/ports.js';

/**
 * The engine's shared state (src/core/ports.ts): per-MX session slots and domain facts. In one
 * process on SQLite they live in memory; on PostgreSQL in the database, so the politeness limit
 * holds summed over every worker and a fact found by one serves all.
 */
export interface EngineStateRole {
  limiter: SessionLimiter;
  cache: FactsCache;
  /** The egress pool's route pauses: this process's memory on SQLite, a table on PostgreSQL (shared by every worker). */
  routePauses: RoutePauses;
  /** The egress routes' politeness budgets per MX host: this process's memory on SQLite, a table on PostgreSQL (shared by every worker). */
  politeness: PolitenessBudget;
}


/**
 * The engine's shared state when the store is PostgreSQL (DESIGN.md §1): per-MX session slots
 * and domain facts live in the database, so the politeness limit holds summed over every
 * worker and API node, and a domain's MX set or catch-all status found by one process serves
 * all of them. On SQLite there is nothing to share across hosts: the engine keeps its
 * in-memory defaults.
 *
 * pg and the adapters are imported only for a PostgreSQL URL, so a SQLite install never loads them.
 *
 * Settings: PRESEND_MX_SLOT_LEASE_MS (how long a dead worker's session slot stays taken,
 * default 15000), PRESEND_SHARED_POOL_SIZE (connections for slots and facts, default 4).
 */
import type { PresendConfig } from '../../config.js';
import type { FactsCache, SessionLimiter } from '../../core/ports.js';

export interface SharedEngineState {
  deps: { limiter: SessionLimiter; cache: FactsCache };
  close(): Promise<void>;
}

function intFromEnv(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name}: expected an integer ≥ ${min}, got "${raw}"`);
  return Number(raw);
}

export async function openSharedEngineState(
  config: Pick<PresendConfig, 'databaseUrl' | 'maxSessionsPerMx'>,
  env: Record<string, string | undefined> = process.env,
): Promise<SharedEngineState | null> {
  if (!/^postgres(ql)?:\/\//.test(config.databaseUrl)) return null;
  const leaseMs = intFromEnv(env, 'PRESEND_MX_SLOT_LEASE_MS', 15_000, 300);
  const poolSize = intFromEnv(env, 'PRESEND_SHARED_POOL_SIZE', 4, 1);
  const [{ createPool }, { createPgSessionLimiter }, { createPgFactsCache }] = await Promise.all([
    import('./database.js'),
    import('./limiter.js'),
    import('./facts-cache.js'),
  ]);
  // Slot and fact writes sit on the path of every new SMTP session: they commit without waiting
  // for the WAL flush. A database crash can lose the last fraction of a second of them: a slot
  // that looks free again for at most one session (leases expire anyway), a fact probed again.
  const pool = createPool(config.databaseUrl, { max: poolSize, applicationName: 'presend-engine', asyncCommit: true });
  const limiter = createPgSessionLimiter(pool, { maxPerHost: config.maxSessionsPerMx, leaseMs });
  const cache = createPgFactsCache(pool);
  return {
    deps: { limiter, cache },
    async close() {
      await limiter.close();
      await pool.end();
    },
  };
}

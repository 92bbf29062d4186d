/**
 * The FactsCache shared by every worker: domain facts (MX sets, host addresses, catch-all
 * status) in the facts_cache table with their expiry, so a domain probed for catch-all by one
 * worker is not probed again by the next. A small in-process layer in front answers repeated
 * lookups of a hot domain without a round trip; it never keeps a fact past the expiry the
 * database holds, and at most `localTtlMs`.
 */
import type pg from 'pg';
import type { Clock, FactsCache } from '../../core/ports.js';
import { systemClock } from '../../core/ports.js';

export interface PgFactsCacheOptions {
  clock?: Clock;
  /** Longest a fact is answered from process memory. Default 30 s. */
  localTtlMs?: number;
  localMaxEntries?: number;
}

export function createPgFactsCache(pool: pg.Pool, options: PgFactsCacheOptions = {}): FactsCache & { purgeExpired(): Promise<number> } {
  const clock = options.clock ?? systemClock;
  const localTtlMs = options.localTtlMs ?? 30_000;
  const localMax = options.localMaxEntries ?? 10_000;
  const local = new Map<string, { value: unknown; expiresAt: number }>();

  const remember = (key: string, value: unknown, expiresAt: number) => {
    local.delete(key);
    local.set(key, { value, expiresAt: Math.min(expiresAt, clock.now().getTime() + localTtlMs) });
    if (local.size > localMax) {
      const oldest = local.keys().next();
      if (!oldest.done) local.delete(oldest.value);
    }
  };

  return {
    async get<T>(key: string): Promise<T | undefined> {
      const hit = local.get(key);
      if (hit && hit.expiresAt > clock.now().getTime()) return hit.value as T;
      local.delete(key);
      try {
        const row = (
          await pool.query<{ value_json: string; expires_at: Date }>(
            'SELECT value_json, expires_at FROM facts_cache WHERE key = $1 AND expires_at > $2',
            [key, clock.now()],
          )
        ).rows[0];
        if (!row) return undefined;
        const value = JSON.parse(row.value_json) as T;
        remember(key, value, new Date(row.expires_at).getTime());
        return value;
      } catch {
        return undefined; // a cache that cannot answer is a miss, never an error
      }
    },
    async set<T>(key: string, value: T, ttlMs: number): Promise<void> {
      const expiresAt = clock.now().getTime() + ttlMs;
      remember(key, value, expiresAt);
      await pool
        .query(
          `INSERT INTO facts_cache (key, value_json, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, expires_at = excluded.expires_at`,
          [key, JSON.stringify(value), new Date(expiresAt)],
        )
        .catch(() => undefined);
    },
    async purgeExpired(): Promise<number> {
      const result = await pool.query('DELETE FROM facts_cache WHERE expires_at <= $1', [clock.now()]);
      return result.rowCount ?? 0;
    },
  };
}

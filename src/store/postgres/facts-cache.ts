/**
 * Role: engine state (domain facts, PostgreSQL). The FactsCache shared by every worker: domain facts (MX sets, host addresses, catch-all
 * status) in the facts_cache table with their expiry, so a domain probed for catch-all by one
 * worker is not probed again by the next. A small in-process layer in front answers repeated
 * lookups of a hot domain without a round trip; it never keeps a fact past the expiry the
 * database holds, and at most `localTtlMs`. Lookups (and writes) made in the same turn of the
 * event loop go to the database together, in one statement.
 */
import type pg from 'pg';
import type { Clock, FactsCache } from '../../core/ports.js';
import { systemClock } from '../../core/ports.js';
import type { Logger } from '../../logger.js';
import { coalesced } from './coalesced.js';

export interface PgFactsCacheOptions {
  /** Hears failed reads and writes: the cache then answers a miss, and the fact is probed again. */
  log: Logger;
  clock?: Clock;
  /** Longest a fact is answered from process memory. Default 30 s. */
  localTtlMs?: number;
  localMaxEntries?: number;
}

export function createPgFactsCache(pool: pg.Pool, options: PgFactsCacheOptions): FactsCache & { purgeExpired(): Promise<number> } {
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

  const read = coalesced<string, unknown>(async (keys) => {
    const found = new Map<string, unknown>();
    try {
      const { rows } = await pool.query<{ key: string; value_json: string; expires_at: Date }>(
        'SELECT key, value_json, expires_at FROM facts_cache WHERE key = ANY($1::text[]) AND expires_at > $2',
        [[...new Set(keys)], clock.now()],
      );
      for (const row of rows) {
        const value = JSON.parse(row.value_json) as unknown;
        remember(row.key, value, new Date(row.expires_at).getTime());
        found.set(row.key, value);
      }
    } catch (err) {
      // A cache that cannot answer is a miss, never an error; but it is heard.
      options.log.warn({ err, facts: keys.length }, 'could not read domain facts from the shared cache');
    }
    return keys.map((k) => found.get(k));
  });

  const write = coalesced<{ key: string; json: string; expiresAt: Date }, void>(async (facts) => {
    // The last write of a key wins; in key order, so two workers writing overlapping facts take the row locks in one order (no deadlock).
    const rows = [...new Map(facts.map((f) => [f.key, f])).values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    await pool
      .query(
        `INSERT INTO facts_cache (key, value_json, expires_at) SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[])
         ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, expires_at = excluded.expires_at`,
        [rows.map((r) => r.key), rows.map((r) => r.json), rows.map((r) => r.expiresAt)],
      )
      .catch((err: unknown) => options.log.warn({ err, facts: rows.length }, 'could not write domain facts to the shared cache'));
    return facts.map(() => undefined);
  });

  return {
    get<T>(key: string): Promise<T | undefined> {
      const hit = local.get(key);
      if (hit && hit.expiresAt > clock.now().getTime()) return Promise.resolve(hit.value as T);
      local.delete(key);
      return read(key) as Promise<T | undefined>;
    },
    set<T>(key: string, value: T, ttlMs: number): Promise<void> {
      const expiresAt = clock.now().getTime() + ttlMs;
      remember(key, value, expiresAt);
      return write({ key, json: JSON.stringify(value), expiresAt: new Date(expiresAt) });
    },
    async purgeExpired(): Promise<number> {
      const result = await pool.query('DELETE FROM facts_cache WHERE expires_at <= $1', [clock.now()]);
      return result.rowCount ?? 0;
    },
  };
}

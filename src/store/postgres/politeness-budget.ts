/**
 * Role: engine state (egress politeness budgets, PostgreSQL). The PolitenessBudget of every
 * worker on one PostgreSQL (src/core/ports.ts, issue 22): one token-bucket row per route, MX host
 * and kind, created full, then locked while it is refilled and one token taken — the rate limits'
 * way (rate-limits.ts) and arithmetic (src/core/token-bucket.ts) — so two workers never spend the
 * same token and a host sees the route's budget, not one budget per worker. The refill clock
 * never runs backwards, even when workers' clocks disagree slightly.
 *
 * The table cannot answer (a lost connection, a failover)? This worker spends from a budget of
 * its own meanwhile: heard as a warning, never a failed probe, and the host is still paced.
 */
import type pg from 'pg';
import { createMemoryPolitenessBudget, POLITENESS_BURST } from '../../core/egress/memory-politeness-budget.js';
import type { PolitenessBudget } from '../../core/ports.js';
import { takeToken } from '../../core/token-bucket.js';
import type { Logger } from '../../logger.js';

export interface PgPolitenessBudget extends PolitenessBudget {
  /** Rows untouched for a day: full again long since, as rows never written. */
  purgeIdle(nowMs: number): Promise<void>;
}

export function createPgPolitenessBudget(pool: pg.Pool, options: { log: Logger }): PgPolitenessBudget {
  const fallback = createMemoryPolitenessBudget();
  return {
    async take(input) {
      const { route, host, kind, perMinute, nowMs } = input;
      let client: pg.PoolClient | undefined;
      let broken: Error | undefined;
      try {
        client = await pool.connect();
        await client.query('BEGIN');
        await client.query('INSERT INTO egress_politeness_buckets (route, host, kind, tokens, updated_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING', [
          route,
          host,
          kind,
          POLITENESS_BURST,
          nowMs,
        ]);
        const { rows } = await client.query<{ tokens: number; updated_ms: string }>(
          'SELECT tokens, updated_ms FROM egress_politeness_buckets WHERE route = $1 AND host = $2 AND kind = $3 FOR UPDATE',
          [route, host, kind],
        );
        const row = rows[0] as { tokens: number; updated_ms: string };
        const updatedMs = Number(row.updated_ms);
        const { state, decision } = takeToken({ tokens: row.tokens, updatedMs }, nowMs, perMinute / 60, POLITENESS_BURST);
        await client.query('UPDATE egress_politeness_buckets SET tokens = $4, updated_ms = $5 WHERE route = $1 AND host = $2 AND kind = $3', [
          route,
          host,
          kind,
          state.tokens,
          Math.max(nowMs, updatedMs),
        ]);
        await client.query('COMMIT');
        return { granted: decision.allowed, retryAfterMs: decision.retryAfterMs };
      } catch (err) {
        await client?.query('ROLLBACK').catch((rollbackErr: unknown) => {
          broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
        });
        options.log.warn({ err, route, host, kind }, 'could not spend from the shared politeness budget; this worker paces the host on its own meanwhile');
        return fallback.take(input);
      } finally {
        client?.release(broken); // a connection that cannot roll back is closed, not reused
      }
    },

    async purgeIdle(nowMs) {
      await pool.query('DELETE FROM egress_politeness_buckets WHERE updated_ms < $1', [nowMs - 86_400_000]);
    },
  };
}

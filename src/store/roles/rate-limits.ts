/**
 * Role: rate limits (docs/design.md §4: per key, sustained rate with bursts). Its interface; the
 * token-bucket arithmetic both dialects share is the engine's (src/core/token-bucket.ts, which
 * the egress politeness budgets spend by too): SQLite keeps the buckets in memory
 * (src/store/sqlite/rate-limits.ts), PostgreSQL in a row locked while it runs
 * (src/store/postgres/rate-limits.ts).
 */
import type { RateDecision } from '../../core/token-bucket.js';

/** Per-key token buckets (docs/design.md §4), shared by every API node when the store is. */
export interface RateLimitsRole {
  consumeToken(input: { keyId: string; now: Date; perSecond: number; burst: number }): Promise<RateDecision>;
}


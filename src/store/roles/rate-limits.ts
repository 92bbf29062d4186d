/**
 * Role: rate limits (docs/design.md §4: per key, sustained rate with bursts). Its interface and
 * the token-bucket arithmetic both dialects share, pure: SQLite keeps the buckets in memory
 * (src/store/sqlite/rate-limits.ts), PostgreSQL in a row locked while it runs
 * (src/store/postgres/rate-limits.ts).
 */

/** Per-key token buckets (docs/design.md §4), shared by every API node when the store is. */
export interface RateLimitsRole {
  consumeToken(input: { keyId: string; now: Date; perSecond: number; burst: number }): Promise<RateDecision>;
}

export interface RateDecision {
  allowed: boolean;
  /** Whole tokens left after this request (0 when refused). */
  remaining: number;
  /** Milliseconds until one token is available again (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

export interface BucketState {
  tokens: number;
  updatedMs: number;
}

export function takeToken(
  state: BucketState | undefined,
  nowMs: number,
  perSecond: number,
  burst: number,
): { state: BucketState; decision: RateDecision } {
  const elapsed = state ? Math.max(0, nowMs - state.updatedMs) : 0;
  let tokens = state ? Math.min(burst, state.tokens + (elapsed * perSecond) / 1000) : burst;
  const allowed = tokens >= 1;
  if (allowed) tokens -= 1;
  return {
    state: { tokens, updatedMs: nowMs },
    decision: {
      allowed,
      remaining: Math.floor(tokens),
      retryAfterMs: allowed ? 0 : Math.ceil(((1 - tokens) * 1000) / perSecond),
      resetMs: Math.ceil(((burst - tokens) * 1000) / perSecond),
    },
  };
}

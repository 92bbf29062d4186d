/**
 * The token-bucket arithmetic, pure: a bucket refilled at `perSecond` that holds at most `burst`
 * tokens, and one token taken from it. The API's rate limits (src/store/roles/rate-limits.ts) and
 * the egress politeness budgets (egress/politeness.ts) both spend their tokens by it, in memory or
 * in a locked row on PostgreSQL.
 */

export interface BucketState {
  tokens: number;
  updatedMs: number;
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

/** A bucket never seen before starts full. */
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

/**
 * Role: rate limits (SQLite). Rate limits on SQLite: the token buckets live in the serving process's memory. One SQLite store
 * serves one `presend serve` process (several API nodes need PostgreSQL, docs/design.md §1), and a
 * write transaction per request was the largest single cost of an API call (BENCHMARKS.md §3).
 * A restart refills every bucket, which only ever errs towards letting a client through.
 */
import type { RateLimitsRole } from '../roles/rate-limits.js';
import type { BucketState } from '../../core/token-bucket.js';
import { takeToken } from '../../core/token-bucket.js';

export function memoryRateLimits(): RateLimitsRole {
  const buckets = new Map<string, BucketState>();
  return {
    async consumeToken(input) {
      const { state, decision } = takeToken(buckets.get(input.keyId), input.now.getTime(), input.perSecond, input.burst);
      buckets.set(input.keyId, state);
      return decision;
    },
  };
}

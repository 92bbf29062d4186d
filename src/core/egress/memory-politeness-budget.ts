/**
 * The PolitenessBudget (ports.ts) of one process: its buckets in memory, spent by the same
 * token-bucket arithmetic as the API's rate limits. What a SQLite deployment uses (one process
 * probes), and the engine's default.
 */
import type { PolitenessBudget } from '../ports.js';
import { takeToken, type BucketState } from '../token-bucket.js';

/** One token at most: what a host sees from a route is evenly spaced, one every minute / perMinute. */
export const POLITENESS_BURST = 1;

const MAX_BUCKETS = 10_000;

/** A bucket untouched for one interval is full again, as one never seen: a long-running worker keeps none per host ever probed. */
function forgetRefilled(buckets: Map<string, BucketState>, nowMs: number, intervalMs: number): void {
  for (const [key, state] of buckets) if (nowMs - state.updatedMs >= intervalMs) buckets.delete(key);
}

export function createMemoryPolitenessBudget(): PolitenessBudget {
  const buckets = new Map<string, BucketState>();
  return {
    async take({ route, host, kind, perMinute, nowMs }) {
      const key = `${route}\u0000${host}\u0000${kind}`;
      if (buckets.size >= MAX_BUCKETS) forgetRefilled(buckets, nowMs, 60_000 / perMinute);
      const { state, decision } = takeToken(buckets.get(key), nowMs, perMinute / 60, POLITENESS_BURST);
      buckets.set(key, state);
      return { granted: decision.allowed, retryAfterMs: decision.retryAfterMs };
    },
  };
}

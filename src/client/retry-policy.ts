/**
 * When to try again, and how long to wait first. Kept apart from the HTTP code so the rules
 * read in one place:
 * - 429: wait at least `Retry-After` (docs/interface-spec.md §7: "clients wait at least that long").
 * - 502/503/504 and lost connections: exponential back-off with jitter. POSTs are safe to
 *   repeat because every attempt carries the same Idempotency-Key.
 * - Everything else is permanent.
 * The total time spent waiting is capped, so a caller is never stuck behind a long Retry-After.
 */

export interface RetryPolicy {
  /** Extra attempts after the first. */
  maxRetries: number;
  /** Total wait budget over all retries of one operation. */
  maxRetryWaitMs: number;
  /** First back-off step for 5xx and network errors; doubles per retry up to `maxBackoffMs`. */
  baseBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  maxRetryWaitMs: 60_000,
  baseBackoffMs: 500,
  maxBackoffMs: 8_000,
};

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * Retry-After is "delay-seconds" or an HTTP-date (RFC 9110 §10.2.3). Returns milliseconds,
 * or null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** Back-off for retry number `retry` (0-based): half fixed, half random, so clients spread out. */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const step = Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** retry);
  return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * The wait before the next attempt: never shorter than the server asked for, and null when
 * the retries or the wait budget are used up (the caller then surfaces the last error).
 */
export function nextDelay(
  policy: RetryPolicy,
  retry: number,
  waitedMs: number,
  serverDelayMs: number | null,
): number | null {
  if (retry >= policy.maxRetries) return null;
  const delay = serverDelayMs ?? backoffDelay(policy, retry);
  if (waitedMs + delay > policy.maxRetryWaitMs) return null;
  return delay;
}

/**
 * When a failed delivery is tried again: Standard Webhooks' example schedule ("Deliverability and
 * reliability"), ten attempts over about three days — at once, then after 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 14 h, 20 h and 24 h — each wait shortened or lengthened by up to 10 % at random
 * (jitter), so endpoints that failed together are not all retried in the same second. A
 * `Retry-After` longer than the scheduled wait is honoured, up to a day.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, … failed attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const JITTER = 0.1;
const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * When to try again after the `attempts`-th attempt failed, or null when that was the last.
 * `random` is in [0, 1) (injected: tests pin it).
 */
export function nextAttemptAt(attempts: number, now: Date, random: () => number, retryAfterMs: number | null = null): Date | null {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  const jittered = base * (1 - JITTER + 2 * JITTER * random());
  const wait = retryAfterMs !== null ? Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)) : jittered;
  return new Date(now.getTime() + Math.round(wait));
}

/** A `Retry-After` header (seconds or an HTTP date, RFC 9110 §10.2.3) in milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: Date): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

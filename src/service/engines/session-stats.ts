/**
 * Counts the live engine's SMTP sessions for /metrics without reaching into the engine: every
 * session holds one slot of the per-MX limiter (a port of the engine, src/core/ports.ts) for
 * its whole life, so wrapping the limiter sees each one start and end.
 */
import type { SessionLimiter } from '../../core/ports.js';

export interface SmtpSessionStats {
  opened: number;
  open: number;
}

export function countingLimiter(inner: SessionLimiter, stats: SmtpSessionStats): SessionLimiter {
  return {
    async acquire(mxHost, signal) {
      const release = await inner.acquire(mxHost, signal);
      stats.opened += 1;
      stats.open += 1;
      let released = false;
      return () => {
        if (!released) {
          released = true;
          stats.open -= 1;
        }
        return release();
      };
    },
  };
}

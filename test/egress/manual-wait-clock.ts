/** A WaitClock (src/core/ports.ts) the test moves: its sleeps end only when the test advances it past them. */
import type { WaitClock } from '../../src/core/ports.js';

export interface ManualWaitClock extends WaitClock {
  advance(ms: number): void;
  /** Sleeps not yet over. */
  sleepers(): number;
}

export function manualWaitClock(start = 1_000_000): ManualWaitClock {
  let now = start;
  const sleeping = new Set<{ at: number; wake: () => void }>();
  return {
    now: () => now,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const sleeper = { at: now + ms, wake: () => (sleeping.delete(sleeper), resolve()) };
        sleeping.add(sleeper);
        signal?.addEventListener('abort', sleeper.wake, { once: true });
      });
    },
    advance(ms) {
      now += ms;
      for (const sleeper of [...sleeping]) if (sleeper.at <= now) sleeper.wake();
    },
    sleepers: () => sleeping.size,
  };
}

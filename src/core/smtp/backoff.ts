/**
 * The wait an MX host asked for (a 421 asking for time, throttling replies): the first back-off,
 * doubled at each further one up to a ceiling, reset by a session that ended well. New sessions
 * of the host wait it out; closing the queue cuts it short.
 */

/** The back-off after `step` earlier ones in a row: `firstMs` doubled each time, at most `maxMs`. Pure. */
export function backoffMs(step: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** step);
}

export class Backoff {
  private step = 0;
  private until = 0;
  private wakeWaiters: (() => void) | null = null;

  constructor(
    private readonly firstMs: number,
    private readonly maxMs: number,
    private readonly now: () => number,
  ) {}

  /** The host asked for time again: the next back-off, doubled, from now (never shortening one under way). */
  extend(): void {
    const ms = backoffMs(this.step, this.firstMs, this.maxMs);
    this.step++;
    this.until = Math.max(this.until, this.now() + ms);
  }

  /** A session ended without breaking: the next back-off starts from the first again. */
  reset(): void {
    this.step = 0;
  }

  /** Resolves once the back-off is over (at once when there is none); cutShort() ends every wait. */
  waitOut(): Promise<void> {
    const wait = this.until - this.now();
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, wait);
      const previous = this.wakeWaiters;
      function done(): void {
        clearTimeout(timer);
        previous?.();
        resolve();
      }
      this.wakeWaiters = done;
    });
  }

  cutShort(): void {
    this.wakeWaiters?.();
  }
}

/**
 * Polling intervals: start quick so short batches feel instant, grow so long ones do not
 * hammer the service (and its rate limit), and snap back when something changes.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export class PollInterval {
  #current: number;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly growth = 1.5,
  ) {
    this.#current = initialMs;
  }

  /** Waits the current interval, then lengthens it for next time. */
  async wait(signal?: AbortSignal): Promise<void> {
    await sleep(this.#current, undefined, signal ? { signal } : undefined);
    this.#current = Math.min(this.maxMs, Math.round(this.#current * this.growth));
  }

  /** Progress was seen: poll quickly again. */
  reset(): void {
    this.#current = this.initialMs;
  }
}

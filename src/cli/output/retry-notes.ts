/**
 * What the person sees of the client's retries: on a terminal, the latest one in the progress
 * bar's status; in a pipe, the first one as a line; either way one summary line at the end
 * ("12 retries, 11 of them rate limited, 14 s spent waiting") instead of a line per retry.
 */
import type { RetryEvent } from '../../client/index.js';
import type { Progress } from './progress.js';

export function describeRetry(event: RetryEvent): string {
  const seconds = (event.delayMs / 1000).toFixed(1);
  const why = event.status === 429 ? 'rate limited' : event.status === null ? 'connection failed' : `service answered ${event.status}`;
  return `${why}; retrying ${event.method} ${event.path} in ${seconds} s (retry ${event.retry})`;
}

export class RetryNotes {
  #count = 0;
  #rateLimited = 0;
  #waitedMs = 0;
  #lineShown = false;

  constructor(
    private readonly note: (message: string) => void,
    private readonly progress: Progress,
  ) {}

  record(event: RetryEvent): void {
    this.#count += 1;
    this.#waitedMs += event.delayMs;
    if (event.status === 429) this.#rateLimited += 1;
    if (this.progress.active) this.progress.status(describeRetry(event));
    else if (this.#count === 1) {
      this.note(`${describeRetry(event)}; further retries are counted, not shown`);
      this.#lineShown = true;
    }
  }

  /** One line for the whole run, when there was more than the line already shown. */
  summary(): void {
    if (this.#count === 0 || (this.#count === 1 && this.#lineShown)) return;
    const limited = this.#rateLimited > 0 ? `, ${this.#rateLimited} of them rate limited` : '';
    this.note(`${this.#count} ${this.#count === 1 ? 'retry' : 'retries'}${limited}, ${(this.#waitedMs / 1000).toFixed(1)} s spent waiting`);
  }
}

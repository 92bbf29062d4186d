/**
 * The recipients waiting for a session of one MX host, and the idle sessions waiting for them.
 * Catch-all probes go to the head (accepted answers wait for them), recipients put back go to
 * the head (they waited longest), the rest join the tail.
 */
import type { Entry, ProbeTarget } from './put-back.js';

export class WaitingLine {
  private entries: Entry[] = [];
  private readonly idle: Array<() => void> = [];

  get length(): number {
    return this.entries.length;
  }

  /** Joins the line: at its head when urgent. */
  add(entry: Entry): void {
    if (entry.target.urgent) this.entries.unshift(entry);
    else this.entries.push(entry);
  }

  /** Leaves the line (an aborted check). */
  remove(entry: Entry): void {
    const at = this.entries.indexOf(entry);
    if (at >= 0) this.entries.splice(at, 1);
  }

  /** Entries put back go first: they waited longest. */
  putBack(entries: readonly Entry[]): void {
    if (entries.length > 0) this.entries.unshift(...entries);
  }

  /** What waits, read only (the evidence of a session that could not be opened names them). */
  targets(): ProbeTarget[] {
    return this.entries.map((entry) => entry.target);
  }

  /** Urgent entries (catch-all probes) at the head. */
  urgentAtHead(): number {
    let urgent = 0;
    while (urgent < this.entries.length && this.entries[urgent]?.target.urgent) urgent++;
    return urgent;
  }

  /** The first `count` entries, out of the line. */
  take(count: number): Entry[] {
    return this.entries.splice(0, count);
  }

  /** Everyone, out of the line. */
  takeAll(): Entry[] {
    return this.entries.splice(0);
  }

  /** An idle session waits up to `ms` for work: true when woken by new work, false when the wait ran out. */
  waitForWork(ms: number): Promise<boolean> {
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const at = this.idle.indexOf(wake);
        if (at >= 0) this.idle.splice(at, 1);
        resolve(false);
      }, ms);
      this.idle.push(wake);
    });
  }

  /** Wakes every idle session (work came, or the queue closes). */
  wakeIdle(): void {
    for (const wake of this.idle.splice(0)) wake();
  }
}

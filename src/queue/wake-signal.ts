/**
 * Role: work queue (wake-ups within a process). Wakes idle worker loops when work arrives, in one process. A wake with nobody waiting is
 * remembered once, so a loop that is between its store poll and its wait does not sleep through it.
 * Both transports use it: the embedded one is woken by `publish`, the PostgreSQL one by a NOTIFY.
 */
export class WakeSignal {
  private readonly waiters = new Set<() => void>();
  private pending = false;

  /** Wakes every waiting loop, or the next one to wait if none is waiting now. */
  wake(): void {
    if (this.waiters.size === 0) this.pending = true;
    for (const done of [...this.waiters]) done();
  }

  /** Wakes every waiting loop without leaving a pending wake (shutdown). */
  release(): void {
    for (const done of [...this.waiters]) done();
  }

  /** Resolves on a wake, on `signal` aborting, or after `maxWaitMs`, whichever comes first. */
  wait(signal: AbortSignal, maxWaitMs: number, immediately = false): Promise<void> {
    if (this.pending || signal.aborted || immediately) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }
}

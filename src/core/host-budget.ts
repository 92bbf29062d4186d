/**
 * Per-MX-host budget of single checks (issue 12, the noisy neighbour): at most `max` single
 * checks of one MX host are in the engine at once. A host that holds every RCPT until just
 * under the step timeout would otherwise gather every check sent its way, each one a seat of
 * the service's few; beyond its budget a check ends at once, TRANSIENT (`aborted`, unbilled),
 * instead of queueing behind the ones already waiting there. Batches are paced by the host
 * queues themselves and do not count here.
 */
export class HostBudget {
  private readonly taken = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** A release function when `host` has room, null when its budget is spent. */
  take(host: string): (() => void) | null {
    const now = this.taken.get(host) ?? 0;
    if (now >= this.max) return null;
    this.taken.set(host, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.taken.get(host) ?? 1) - 1;
      if (left <= 0) this.taken.delete(host);
      else this.taken.set(host, left);
    };
  }
}

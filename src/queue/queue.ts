/**
 * The queue contract: how the API tells workers that batch work exists. The items themselves
 * are durable in the store (leased with `claimItems`), so a lost wake-up costs at most one
 * poll interval, never an item. On SQLite the queue is embedded (in-process wake-ups plus
 * polling, which also covers a separate `presend worker` process on the same file); on
 * PostgreSQL pg-boss carries the wake-ups between processes.
 */
export interface BatchQueue {
  /** A request with open items was created. */
  publish(requestId: string): Promise<void>;
  /** Resolves when work may be available: a publish, `maxWaitMs` elapsed, or `signal` aborted. */
  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void>;
  /** Optional: wake the workers of `affinity` at `at`, when a greylisting recheck is due (pg-boss). */
  scheduleRecheck?(affinity: string, at: Date): Promise<void>;
  close(): Promise<void>;
}

/**
 * Role: work queue (the wake-up transport). The queue's transport: how idle workers hear that batch work exists. The work itself is the
 * store's (src/store/backend.ts WorkQueueRole: items leased, renewed, taken over), so a lost
 * wake-up costs at most one poll interval, never an item. Embedded within one process on SQLite
 * (src/queue/embedded.ts); across processes on PostgreSQL.
 */
export interface WakeUps {
  /** A request with open items was created. */
  publish(requestId: string): Promise<void>;
  /** Resolves when work may be available: a publish, `maxWaitMs` elapsed, or `signal` aborted. */
  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Role: work queue (its wake-ups, SQLite). Wake-ups within one process (SQLite): a publish wakes this process's idle workers; another process on the same file finds work by polling. */
import type { WakeUps } from './queue.js';
import { WakeSignal } from './wake-signal.js';

export class EmbeddedWakeUps implements WakeUps {
  private readonly wakeups = new WakeSignal();

  async publish(_requestId: string): Promise<void> {
    this.wakeups.wake();
  }

  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    return this.wakeups.wait(signal, maxWaitMs);
  }

  /** The worker that saw the greylisting wakes itself when the recheck is due (src/service/batches/batch-runner.ts). */

  async close(): Promise<void> {
    this.wakeups.release();
  }
}

/** The embedded queue: wake-ups inside one process; other processes find work by polling the store. */
import type { BatchQueue } from './queue.js';
import { WakeSignal } from './wake-signal.js';

export class EmbeddedQueue implements BatchQueue {
  private readonly wakeups = new WakeSignal();

  async publish(_requestId: string): Promise<void> {
    this.wakeups.wake();
  }

  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    return this.wakeups.wait(signal, maxWaitMs);
  }

  async close(): Promise<void> {
    this.wakeups.release();
  }
}

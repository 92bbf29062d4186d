/**
 * The fill of list batches (src/store/roles/list-batches.ts): a batch over a stored list is
 * created with its count and no items, and this copies the list into its items in chunks of
 * `chunk` entries — read, parsed and de-duplicated here, written in one short transaction each —
 * yielding to the event loop between chunks, so the API keeps serving and memory holds one chunk,
 * not the list. Workers are woken after each chunk: its items are claimable at once.
 *
 * The process that created the batch starts its fill; every process with a filler also looks
 * every `pollMs` for a fill whose lease lapsed (its process died) and resumes it where it stopped.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Backend, ListBatchesRole, ListsRole, WorkQueueRole } from '../../store/backend.js';
import type { PresendConfig } from '../../config.js';
import type { Logger } from '../../logger.js';
import { batchItemsFrom } from '../batches/batch-items.js';

export interface ListBatchFillerOptions {
  listBatches: ListBatchesRole;
  lists: ListsRole;
  work: WorkQueueRole;
  /** List entries per transaction (config.listFillChunk). */
  chunk: number;
  /** How long a fill stays with a process that stopped writing chunks (config.leaseMs). */
  leaseMs: number;
  /** How often lapsed fills are looked for. */
  pollMs: number;
  retentionDays: number;
  log: Logger;
  now?: () => Date;
}

export class ListBatchFiller {
  private readonly now: () => Date;
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly o: ListBatchFillerOptions) {
    this.now = o.now ?? (() => new Date());
  }

  /** When the fill of a batch this process just created should end, given its lease starts now. */
  leaseUntil(): Date {
    return new Date(this.now().getTime() + this.o.leaseMs);
  }

  /** Fills a batch this process created (it holds the lease), in the background. */
  fill(requestId: string, listId: string): void {
    this.run(requestId, listId, 0);
  }

  /** Looks for lapsed fills now and every `pollMs`. */
  start(): void {
    const sweep = async () => {
      try {
        while (!this.stopped) {
          const taken = await this.o.listBatches.takeLapsedFill(this.now(), this.leaseUntil());
          if (!taken) return;
          this.o.log.info({ requestId: taken.requestId, position: taken.position }, 'resuming the fill of a list batch');
          this.run(taken.requestId, taken.listId, taken.position);
        }
      } catch (err) {
        this.o.log.warn({ err }, 'could not look for list batches to fill');
      }
    };
    void sweep();
    this.timer = setInterval(() => void sweep(), this.o.pollMs);
    this.timer.unref();
  }

  /** Stops after the chunks in progress; their fills are resumed once their leases lapse. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }

  /** Resolves when no fill of this process is running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private run(requestId: string, listId: string, from: number): void {
    if (this.running.has(requestId)) return;
    const done = this.copy(requestId, listId, from)
      .catch((err: unknown) => this.o.log.warn({ err, requestId }, 'a list batch fill stopped; it resumes once its lease lapses'))
      .finally(() => this.running.delete(requestId));
    this.running.set(requestId, done);
  }

  private async copy(requestId: string, listId: string, from: number): Promise<void> {
    const { chunk } = this.o;
    let position = from;
    while (!this.stopped) {
      const slice = await this.o.lists.readListSlice(listId, position, chunk);
      const now = this.now();
      const next = slice.length > 0 ? (slice[slice.length - 1] as { position: number }).position + 1 : position;
      const written = await this.o.listBatches.writeFillChunk({
        requestId,
        from: position,
        next,
        done: slice.length < chunk,
        items: batchItemsFrom(
          slice.map((e) => e.email),
          now,
        ),
        leaseUntil: this.leaseUntil(),
        now,
        retentionDays: this.o.retentionDays,
      });
      if (written === 'lost') return;
      await this.o.work.publish(requestId);
      if (slice.length < chunk) return;
      position = next;
      // Between two chunks the API answers what arrived meanwhile.
      await yieldToLoop();
    }
  }
}

/** A filler's settings from the configuration (src/config.ts), on the backend's roles. */
export function listBatchFillerOptions(config: PresendConfig, backend: Backend, log: Logger, now?: () => Date): ListBatchFillerOptions {
  return {
    listBatches: backend.listBatches,
    lists: backend.lists,
    work: backend.work,
    chunk: config.listFillChunk,
    leaseMs: config.leaseMs,
    // Lapsed fills are rare (a process died): looking every few seconds costs one indexed query.
    pollMs: Math.max(config.workerPollMs, 5_000),
    retentionDays: config.retentionDays,
    log,
    ...(now ? { now } : {}),
  };
}

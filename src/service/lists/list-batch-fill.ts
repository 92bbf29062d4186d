/**
 * The fill of list batches (src/store/roles/list-batches.ts): a batch over a stored list is
 * created with its count and no items, and this copies the list into its items in chunks of
 * `chunk` entries — read, parsed and de-duplicated here, written in one short transaction each —
 * yielding to the event loop between chunks, so the API keeps serving and memory holds one chunk,
 * not the list. Workers are woken after each chunk: its items are claimable at once.
 *
 * The process that created the batch starts its fill, and its lease keeper keeps the fill's lease;
 * every process with a filler also takes over, at each of its keeper's rounds, a fill whose lease
 * lapsed (its process died) and resumes it where it stopped. A fill whose lease was lost stops.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Backend } from '../../store/backend.js';
import type { ListBatchesRole } from '../../store/roles/list-batches.js';
import type { ListsRole } from '../../store/roles/lists.js';
import type { WorkQueueRole } from '../../store/roles/work-queue.js';
import type { LeaseGrant } from '../../store/roles/lease-grant.js';
import type { LeasesRole } from '../../store/roles/leases.js';
import { LeaseKeeper, systemClock } from '../leases/lease-keeper.js';
import type { PresendConfig } from '../../config.js';
import type { Logger } from '../../logger.js';
import { batchItemsFrom } from '../batches/batch-items.js';

export interface ListBatchFillerOptions {
  listBatches: ListBatchesRole;
  lists: ListsRole;
  work: WorkQueueRole;
  leases: LeasesRole;
  /** The process's lease keeper (shared with its other work); none: a keeper of the filler's own, started with it. */
  keeper?: LeaseKeeper;
  /** List entries per transaction (config.listFillChunk). */
  chunk: number;
  /** How long a fill stays with a process that stopped writing chunks (config.leaseMs), for a keeper of the filler's own. */
  leaseMs: number;
  retentionDays: number;
  log: Logger;
  now?: () => Date;
}

/** Lapsed fills taken over per round of the keeper. */
const TAKEOVERS_PER_ROUND = 10;

export class ListBatchFiller {
  private readonly now: () => Date;
  private readonly running = new Map<string, Promise<void>>();
  private readonly keeper: LeaseKeeper;
  /** Whether the keeper is this filler's own (started and stopped with it). */
  private readonly ownKeeper: boolean;
  private started = false;
  private stopped = false;

  constructor(private readonly o: ListBatchFillerOptions) {
    this.now = o.now ?? (() => new Date());
    this.ownKeeper = !o.keeper;
    this.keeper = o.keeper ?? new LeaseKeeper({ leases: o.leases, leaseMs: o.leaseMs, clock: systemClock(this.now), log: o.log });
  }

  /** The lease of the fill of a batch this process is about to create. */
  lease(): LeaseGrant {
    return this.keeper.grant();
  }

  /** Fills a batch this process created (it holds the lease), in the background. */
  fill(requestId: string, listId: string): void {
    this.run(requestId, listId, 0);
  }

  /** Takes over lapsed fills at every round of the keeper (the first one now, when the keeper is its own). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.keeper.takeOver('listFill', {
      room: () => (this.stopped ? 0 : TAKEOVERS_PER_ROUND),
      run: (taken) => {
        this.o.log.info({ requestId: taken.requestId, position: taken.position }, 'resuming the fill of a list batch');
        this.run(taken.requestId, taken.listId, taken.position);
      },
    });
    if (this.ownKeeper) this.keeper.start();
  }

  /** Stops after the chunks in progress; their fills are resumed once their leases lapse. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
    if (this.ownKeeper) await this.keeper.stop();
  }

  /** Resolves when no fill of this process is running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private run(requestId: string, listId: string, from: number): void {
    if (this.running.has(requestId)) return;
    const lease = this.keeper.hold('listFill', requestId);
    const done = this.copy(requestId, listId, from, lease)
      .catch((err: unknown) => this.o.log.warn({ err, requestId }, 'a list batch fill stopped; it resumes once its lease lapses'))
      .finally(() => {
        this.keeper.drop('listFill', [requestId]);
        this.running.delete(requestId);
      });
    this.running.set(requestId, done);
  }

  /** Copies chunk after chunk while this process holds the fill's lease (a lost one: another process goes on from where the store is). */
  private async copy(requestId: string, listId: string, from: number, lease: AbortSignal): Promise<void> {
    const { chunk } = this.o;
    let position = from;
    while (!this.stopped && !lease.aborted) {
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
export function listBatchFillerOptions(config: PresendConfig, backend: Backend, log: Logger, now?: () => Date, keeper?: LeaseKeeper): ListBatchFillerOptions {
  return {
    ...(keeper ? { keeper } : {}),
    listBatches: backend.listBatches,
    lists: backend.lists,
    work: backend.work,
    leases: backend.leases,
    chunk: config.listFillChunk,
    leaseMs: config.leaseMs,
    retentionDays: config.retentionDays,
    log,
    ...(now ? { now } : {}),
  };
}

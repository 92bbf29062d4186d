/**
 * The batch runner (the service side of a worker): leases items from the work queue in chunks
 * of whole domains (so the engine
 * reuses SMTP sessions), runs `engine.verifyMany`, and hands each result with its billing to the
 * store as it arrives (all-or-nothing per item; the store may share a transaction between
 * results). A loop claims its next chunk once the engine is done with the last one, while that
 * chunk's results are still being written. Greylisted items come back after the recheck delay to this
 * same worker (affinity, docs/design.md §5); after the last recheck they become a TRANSIENT
 * non-verdict so the batch can finish. A crash leaves leases that expire and are taken over;
 * a result stored twice is a no-op in the store, so nothing is billed twice. The items' leases are
 * held by the process's lease keeper (src/service/leases/lease-keeper.ts), which renews them; one
 * it finds lost (another worker took the item over after a stall) is dropped: its result is not
 * written by this runner, and a chunk whose items are all lost stops probing.
 */
import { randomUUID } from 'node:crypto';
import type { ClaimedItem, WorkQueueRole } from '../../store/roles/work-queue.js';
import { toStoredResult } from '../../store/stored-result.js';
import type { Backend } from '../../store/backend.js';
import type { BatchesRole } from '../../store/roles/batches/batches.js';
import type { PoliciesRole } from '../../store/roles/policies.js';
import type { LeasesRole } from '../../store/roles/leases.js';
import { LeaseKeeper, systemClock } from '../leases/lease-keeper.js';
import type { PresendConfig } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { EngineResult } from '../../core/types.js';
import { engineFor } from '../engines/engines.js';
import type { Engines } from '../engines/engines.js';
import type { Metrics } from '../operations/metrics.js';
import { failedResult, greylistExhausted } from '../checks/envelopes.js';
import { underAccountPolicy } from '../policy/apply-policy.js';
import type { FeedbackRole } from '../../store/roles/feedback/feedback.js';
import { readFeedback } from '../feedback/check-feedback.js';
import type { EvidenceRole } from '../../store/roles/evidence.js';
import { EvidenceKeeper } from '../evidence/evidence-keeper.js';

export interface BatchRunnerOptions {
  work: WorkQueueRole;
  leases: LeasesRole;
  /** The process's lease keeper (shared with its other work); none: the runner keeps its items' leases with a keeper of its own. */
  keeper?: LeaseKeeper;
  batches: BatchesRole;
  /** Each account's decision policy, read as each item is decided (docs/policy.md). */
  policies: PoliciesRole;
  /** The accounts' send feedback, read once per chunk (docs/feedback.md); none: results as the engine gives them. */
  feedback?: FeedbackRole;
  engines: Engines;
  metrics?: Metrics;
  /** Where each item's evidence is kept (docs/evidence.md); none: items are not explained. */
  evidence?: EvidenceRole;
  recheckDelayMs: number;
  /** The recheck delay of sandbox items (config.sandboxRecheckDelayMs). */
  sandboxRecheckDelayMs: number;
  retentionDays: number;
  /** Items per chunk handed to verifyMany. */
  chunkSize: number;
  /** Chunks processed at once (config.workerParallelChunks). */
  parallelChunks: number;
  /** Greylisting rechecks before the address is given up as TRANSIENT. */
  maxRechecks?: number;
  /** How long a due recheck waits for its own worker before any worker may take it (null: max(recheckDelayMs, 60 s)). */
  affinityGraceMs: number | null;
  /** Claims of one item (crashes, engine failures) before it is given up as `failed`. */
  maxAttempts?: number;
  leaseMs: number;
  /** How often an idle runner looks for work nobody announced (expired leases). */
  pollMs: number;
  /** Affinity name: same name = same egress host (config.workerId). */
  affinity: string;
  log: Logger;
  now?: () => Date;
}

export class BatchRunner {
  readonly owner: string;
  readonly affinity: string;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private readonly now: () => Date;
  private readonly leaseMs: number;
  private readonly keeper: LeaseKeeper;
  /** Whether the keeper is this runner's own (started and stopped with it). */
  private readonly ownKeeper: boolean;
  /** When this worker's own greylisting rechecks fall due (epoch ms, rounded up to 25 ms), so an idle loop wakes for them. */
  private readonly recheckTimes = new Set<number>();
  private pruneAbove = 256;
  private readonly evidence: EvidenceKeeper;

  constructor(private readonly o: BatchRunnerOptions) {
    this.evidence = new EvidenceKeeper(o.evidence, o.log);
    this.affinity = o.affinity;
    this.now = o.now ?? (() => new Date());
    this.leaseMs = o.leaseMs;
    this.ownKeeper = !o.keeper;
    this.keeper = o.keeper ?? new LeaseKeeper({ leases: o.leases, leaseMs: o.leaseMs, owner: `${this.affinity}#${randomUUID()}`, clock: systemClock(this.now), log: o.log });
    this.owner = this.keeper.owner;
  }

  start(): void {
    if (this.ownKeeper) this.keeper.start();
    const n = this.o.parallelChunks;
    for (let i = 0; i < n; i++) this.loops.push(this.loop());
  }

  /** Stop claiming; chunks in progress are aborted and their unfinished items handed back. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled(this.loops);
    if (this.ownKeeper) await this.keeper.stop();
  }

  private async loop(): Promise<void> {
    const signal = this.abort.signal;
    // The previous chunk's result writes: they finish while this loop's next chunk is probed,
    // so the store's commit latency does not stand between two chunks. At most one chunk drains.
    let draining: Promise<void> = Promise.resolve();
    while (!signal.aborted) {
      let claimed: ClaimedItem[] = [];
      try {
        claimed = await this.o.work.claim({
          owner: this.owner,
          affinity: this.affinity,
          now: this.now(),
          leaseMs: this.leaseMs,
          limit: this.o.chunkSize,
          affinityGraceMs: this.o.affinityGraceMs ?? Math.max(this.o.recheckDelayMs, 60_000),
        });
      } catch (err) {
        this.o.log.warn({ err }, 'worker could not claim items');
      }
      if (claimed.length === 0) {
        await draining;
        await this.o.work.waitForWork(signal, this.untilNextRecheck());
        continue;
      }
      try {
        const { drained } = await this.runChunk(claimed);
        await draining;
        draining = drained;
      } catch (err) {
        // A store outage mid-chunk: the leases expire and the items are taken up again.
        this.keeper.drop(
          'item',
          claimed.map((i) => i.itemId),
        );
        this.o.log.warn({ err }, 'worker chunk failed');
        await this.o.work.waitForWork(signal, this.o.pollMs);
      }
    }
    await draining;
  }

  /** Remembers a recheck due time; past ones are dropped when the set has doubled (a busy worker never idles to drop them). */
  private noteRecheck(at: number): void {
    this.recheckTimes.add(Math.ceil(at / 25) * 25);
    if (this.recheckTimes.size <= this.pruneAbove) return;
    const now = this.now().getTime();
    for (const t of this.recheckTimes) if (t <= now) this.recheckTimes.delete(t);
    this.pruneAbove = Math.max(256, 2 * this.recheckTimes.size);
  }

  /** How long an idle loop may wait: its poll interval, or less when one of this worker's rechecks is due sooner. */
  private untilNextRecheck(): number {
    const poll = this.o.pollMs;
    const now = this.now().getTime();
    let next = Number.POSITIVE_INFINITY;
    for (const t of this.recheckTimes) {
      if (t <= now) this.recheckTimes.delete(t);
      else if (t < next) next = t;
    }
    // A few ms past the due time, so the store sees the item due (its clock is this one).
    return Number.isFinite(next) ? Math.max(1, Math.min(poll, next - now + 5)) : poll;
  }

  /** Verifies a chunk and stores its results; resolves once every result is stored. */
  async processChunk(items: ClaimedItem[]): Promise<void> {
    await (await this.runChunk(items)).drained;
  }

  /**
   * Verifies a chunk. Resolves when the engine is done with it, with a promise of the rest:
   * its results stored, and the items it did not answer handed back or backed off.
   */
  private async runChunk(items: ClaimedItem[]): Promise<{ drained: Promise<void> }> {
    // The accounts' feedback first: a read that fails fails the chunk before anything of it started (its leases lapse).
    const feedback = await readFeedback(this.o.feedback, items, this.now());
    const open = new Map(items.map((i) => [i.itemId, i]));
    const maxAttempts = this.o.maxAttempts ?? 5;
    const writes: Promise<void>[] = [];
    // Stops probing this chunk: on stop(), or once every item still open was taken over elsewhere.
    const chunk = new AbortController();
    for (const item of items) {
      this.keeper.hold('item', item.itemId, () => {
        open.delete(item.itemId);
        if (open.size === 0) chunk.abort(new Error('every lease of the chunk was lost'));
      });
    }
    for (const item of items) {
      if (item.attempts >= maxAttempts) {
        this.keeper.drop('item', [item.itemId]);
        writes.push(this.finish(item, failedResult(this.now())).then(() => undefined, (err: unknown) => this.o.log.warn({ err, itemId: item.itemId }, 'could not store an item result')));
        open.delete(item.itemId);
      }
    }
    const onStop = () => chunk.abort(this.abort.signal.reason);
    this.abort.signal.addEventListener('abort', onStop, { once: true });
    const answer = (item: ClaimedItem, result: EngineResult) => {
      // A lost item (not in `open` any more) belongs to its new holder: its result is not ours to write.
      if (!open.delete(item.itemId)) return;
      this.keeper.drop('item', [item.itemId]);
      writes.push(this.store(item, feedback.apply(item, result)));
    };
    // Hard bounces in the account's own feedback are answered without a probe.
    for (const item of [...open.values()]) {
      const known = feedback.answer(item);
      if (known) answer(item, known);
    }
    try {
      for (const sandbox of [true, false]) {
        const group = [...open.values()].filter((i) => i.sandbox === sandbox);
        if (group.length === 0) continue;
        const byEmail = new Map<string, ClaimedItem[]>();
        for (const i of group) byEmail.set(i.email, [...(byEmail.get(i.email) ?? []), i]);
        try {
          await engineFor(this.o.engines, sandbox).verifyMany(
            [...byEmail.keys()],
            (result) => {
              // After stop() the engine answers aborted checks as TRANSIENT: those are not results, hand the items back.
              if (chunk.signal.aborted) return;
              for (const item of byEmail.get(result.input) ?? byEmail.get(result.email) ?? []) answer(item, result);
            },
            { signal: chunk.signal, explain: this.evidence.enabled },
          );
        } catch (err) {
          this.o.log.error({ err }, 'engine failed on a chunk; retrying its addresses one by one');
          // Isolate the address that breaks the engine so its chunk-mates still finish.
          for (const [email, targets] of byEmail) {
            if (chunk.signal.aborted || !targets.some((t) => open.has(t.itemId))) continue;
            try {
              const result = await engineFor(this.o.engines, sandbox).verify(email, { signal: chunk.signal, explain: this.evidence.enabled });
              if (chunk.signal.aborted) continue;
              for (const item of targets) answer(item, result);
            } catch (single) {
              this.o.log.error({ err: single, email }, 'engine failed on an address');
            }
          }
        }
      }
    } finally {
      this.abort.signal.removeEventListener('abort', onStop);
    }
    return { drained: this.settle(writes, open) };
  }

  private async settle(writes: Promise<void>[], open: Map<number, ClaimedItem>): Promise<void> {
    await Promise.all(writes);
    await this.evidence.flush();
    if (open.size === 0) return;
    const ids = [...open.keys()];
    try {
      if (this.abort.signal.aborted) {
        await this.keeper.release('item', ids);
        return;
      }
      // The engine did not answer for these (it threw): retry after a short back-off via lease expiry.
      await this.keeper.lapseAt('item', ids, new Date(this.now().getTime() + Math.min(this.leaseMs, 2_000)));
    } catch (err) {
      // Their leases run out and another claim takes them up.
      this.o.log.warn({ err, items: ids.length }, 'could not hand unfinished items back; their leases will expire');
    }
  }

  private async store(item: ClaimedItem, result: EngineResult): Promise<void> {
    try {
      const now = this.now();
      // Greylisted, or not asked (its host kept throttling us, or every egress route is paused
      // for its provider): asked again when its retry window opens, instead of ending at once.
      if (result.envelope.status === 'recheck_scheduled') {
        const recheckDelayMs = item.sandbox ? this.o.sandboxRecheckDelayMs : this.o.recheckDelayMs;
        if (item.rechecks < (this.o.maxRechecks ?? 3)) {
          const recheckAt = recheckDue(result, now, recheckDelayMs);
          const waitsForRoute = result.envelope.reasons.includes('egress_paused');
          await this.o.batches.recordItemResult({ kind: 'recheck', itemId: item.itemId, affinity: this.affinity, recheckAt, now, waitsForRoute });
          this.evidence.keep(this.evidenceKey(item, now), result, toStoredResult(result));
          // The store keeps the item; this process wakes itself when the recheck is due, and any
          // worker polling the table takes it after the affinity grace.
          this.noteRecheck(recheckAt.getTime());
          return;
        }
        const decided = await this.finish(item, greylistExhausted(toStoredResult(result), now, recheckDelayMs));
        this.evidence.keep(this.evidenceKey(item, now), result, decided);
        return;
      }
      this.evidence.keep(this.evidenceKey(item, now), result, await this.finish(item, toStoredResult(result)));
    } catch (err) {
      this.o.log.warn({ err, itemId: item.itemId }, 'could not store an item result');
    }
  }

  /** Stores an item's final result under its account's policy; returns the result as stored. */
  private async finish(item: ClaimedItem, result: ReturnType<typeof toStoredResult>): Promise<ReturnType<typeof toStoredResult>> {
    const decided = await underAccountPolicy(this.o.policies, item.accountId, result);
    const outcome = await this.o.batches.recordItemResult({ kind: 'final', itemId: item.itemId, result: decided, now: this.now(), retentionDays: this.o.retentionDays });
    if (outcome.recorded) this.o.metrics?.observeVerification(outcome.verdict, outcome.debited);
    return decided;
  }

  /** A batch item's evidence is kept by its request's id and its address (docs/evidence.md). */
  private evidenceKey(item: ClaimedItem, now: Date) {
    return { accountId: item.accountId, checkId: item.requestId, email: item.email, kind: 'item' as const, now };
  }
}

/**
 * When a waiting item is asked again: an address that was not asked (verdict null) when its
 * retry window opens — the recheck delay after a throttling host, the first egress route's return
 * after a provider refused every route; a greylisted one after this runner's delay (the sandbox's is shorter).
 */
function recheckDue(result: EngineResult, now: Date, recheckDelayMs: number): Date {
  const eligible = result.envelope.verdict === null && result.envelope.retry ? Date.parse(result.envelope.retry.eligible_at) : Number.NaN;
  return new Date(Number.isFinite(eligible) ? Math.max(eligible, now.getTime()) : now.getTime() + recheckDelayMs);
}

/** A batch runner's settings from the configuration (src/config.ts), on the backend's roles. */
export function batchRunnerOptions(config: PresendConfig, backend: Backend, engines: Engines, log: Logger, keeper?: LeaseKeeper): BatchRunnerOptions {
  return {
    log,
    ...(keeper ? { keeper } : {}),
    work: backend.work,
    leases: backend.leases,
    batches: backend.batches,
    policies: backend.policies,
    feedback: backend.feedback,
    evidence: backend.evidence,
    engines,
    recheckDelayMs: config.recheckDelayMs,
    sandboxRecheckDelayMs: config.sandboxRecheckDelayMs,
    retentionDays: config.retentionDays,
    chunkSize: config.workerConcurrency,
    parallelChunks: config.workerParallelChunks,
    affinityGraceMs: config.workerAffinityGraceMs,
    leaseMs: config.leaseMs,
    pollMs: config.workerPollMs,
    affinity: config.workerId,
  };
}

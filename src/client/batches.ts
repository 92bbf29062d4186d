/**
 * Running a plan of several batches (batch-plan.ts) as one job: create each batch with its
 * derived Idempotency-Key, wait for all of them with one polling loop, and export every
 * result of every batch. Progress is reported through one callback, so a caller can draw a
 * single bar over the whole run; retries are reported by the client's `onRetry`.
 */
import type { CallOptions, PageOptions, SpendOptions } from './call-options.js';
import { exportResults } from './export.js';
import type { BatchPlan, PlannedBatch } from './batch-plan.js';
import { PollInterval } from './pacing.js';
import type { BatchInput, BatchRequest, ResultItem, ResultsPage } from './types.js';
import { isSettled } from './wait.js';

export type BatchesProgress =
  | { phase: 'creating'; created: number; replayed: number; batches: number }
  | {
      phase: 'verifying';
      finished: number;
      unique: number;
      rechecking: number;
      /** Seconds until the earliest waiting recheck of these batches is due; null when none waits. */
      nextRecheckInSeconds: number | null;
      settled: number;
      batches: number;
    }
  | { phase: 'exporting'; received: number; unique: number };

interface BatchClient {
  createRequest(input: BatchInput, options?: SpendOptions): Promise<BatchRequest>;
  getRequest(id: string, options?: CallOptions): Promise<BatchRequest>;
  getResults(id: string, options?: PageOptions): Promise<ResultsPage>;
}

export interface CreateBatchesOptions {
  signal?: AbortSignal;
  onProgress?: (progress: BatchesProgress) => void;
  /** Each batch as it is created (or replayed): a caller can record ids before a later batch fails. */
  onCreated?: (batch: BatchRequest, planned: PlannedBatch) => void;
}

export async function createBatches(client: BatchClient, plan: BatchPlan, options: CreateBatchesOptions = {}): Promise<BatchRequest[]> {
  const created: BatchRequest[] = [];
  let replayed = 0;
  options.onProgress?.({ phase: 'creating', created: 0, replayed: 0, batches: plan.batches.length });
  for (const planned of plan.batches) {
    const batch = await client.createRequest(
      { emails: planned.emails },
      { idempotencyKey: planned.idempotencyKey, ...(options.signal ? { signal: options.signal } : {}) },
    );
    created.push(batch);
    if (batch.replayed) replayed += 1;
    options.onCreated?.(batch, planned);
    options.onProgress?.({ phase: 'creating', created: created.length, replayed, batches: plan.batches.length });
  }
  return created;
}

export interface WaitForBatchesOptions {
  /** First interval between polling rounds; grows to `maxPollIntervalMs` while nothing changes. Default 500 ms. */
  pollIntervalMs?: number;
  /** Default 5 s. */
  maxPollIntervalMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: BatchesProgress, batches: BatchRequest[]) => void;
}

type Verifying = Extract<BatchesProgress, { phase: 'verifying' }>;

function verifying(batches: readonly BatchRequest[]): Verifying {
  let finished = 0;
  let unique = 0;
  let rechecking = 0;
  let nextRecheckInSeconds: number | null = null;
  for (const { counters } of batches) {
    finished += (counters.completed ?? 0) + (counters.failed ?? 0);
    unique += counters.unique ?? counters.total ?? 0;
    rechecking += counters.rechecking ?? 0;
    const next = counters.nextRecheckInSeconds;
    if (next !== undefined) nextRecheckInSeconds = Math.min(next, nextRecheckInSeconds ?? next);
  }
  return { phase: 'verifying', finished, unique, rechecking, nextRecheckInSeconds, settled: batches.filter(isSettled).length, batches: batches.length };
}

/** Polls every unsettled batch once per round until all are completed or failed. */
export async function waitForBatches(client: BatchClient, ids: readonly string[], options: WaitForBatchesOptions = {}): Promise<BatchRequest[]> {
  const interval = new PollInterval(options.pollIntervalMs ?? 500, options.maxPollIntervalMs ?? 5_000);
  const signalOption = options.signal ? { signal: options.signal } : {};
  const latest = new Map<string, BatchRequest>();
  let lastFinished = -1;
  for (;;) {
    for (const id of ids) {
      const known = latest.get(id);
      if (known && isSettled(known)) continue;
      latest.set(id, await client.getRequest(id, signalOption));
    }
    const batches = ids.map((id) => latest.get(id) as BatchRequest);
    const progress = verifying(batches);
    options.onProgress?.(progress, batches);
    if (progress.settled === batches.length) return batches;
    if (progress.finished !== lastFinished) interval.reset();
    lastFinished = progress.finished;
    await interval.wait(options.signal);
  }
}

export interface ExportBatchesOptions {
  /** Page size, 1–200. Default 200. */
  limit?: number;
  /** Expected number of results, for progress (the batches' unique addresses). */
  expected?: number;
  signal?: AbortSignal;
  onProgress?: (progress: BatchesProgress) => void;
}

/** Every result of every batch, batch after batch, each export checked for completeness. */
export async function* exportBatches(client: BatchClient, ids: readonly string[], options: ExportBatchesOptions = {}): AsyncGenerator<ResultItem, void, undefined> {
  let received = 0;
  const unique = options.expected ?? 0;
  options.onProgress?.({ phase: 'exporting', received, unique });
  for (const id of ids) {
    for await (const item of exportResults(client, id, {
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    })) {
      received += 1;
      yield item;
      if (received % 200 === 0) options.onProgress?.({ phase: 'exporting', received, unique });
    }
  }
  options.onProgress?.({ phase: 'exporting', received, unique });
}

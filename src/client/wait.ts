/**
 * Waiting for a batch: poll GET /v1/requests/{id} (there are no webhooks, docs/interface-spec.md
 * §6) until the request is completed or failed, reporting counters on each poll.
 */
import type { CallOptions } from './call-options.js';
import { PollInterval } from './pacing.js';
import type { BatchRequest } from './types.js';

export interface WaitOptions {
  /** First interval; grows by half each quiet poll up to `maxPollIntervalMs`. Default 500 ms. */
  pollIntervalMs?: number;
  /** Default 5 s. */
  maxPollIntervalMs?: number;
  /** Called with every status answer, the last one included. */
  onProgress?: (batch: BatchRequest) => void;
  signal?: AbortSignal;
}

interface RequestReader {
  getRequest(id: string, options?: CallOptions): Promise<BatchRequest>;
}

/**
 * Done means nothing more will change: `completed`/`failed` (docs/design.md §4), or, for a
 * service with other state names, a finalized request or one whose counters are frozen.
 */
export function isSettled(batch: BatchRequest): boolean {
  const { state, finalized, countsMayChange } = batch.request;
  return state === 'completed' || state === 'failed' || finalized || !countsMayChange;
}

export async function waitForRequest(client: RequestReader, id: string, options: WaitOptions = {}): Promise<BatchRequest> {
  const interval = new PollInterval(options.pollIntervalMs ?? 500, options.maxPollIntervalMs ?? 5_000);
  const signalOption = options.signal ? { signal: options.signal } : {};
  let lastCompleted = -1;
  for (;;) {
    const batch = await client.getRequest(id, signalOption);
    options.onProgress?.(batch);
    if (isSettled(batch)) return batch;
    const completed = batch.counters.completed ?? 0;
    if (completed !== lastCompleted) interval.reset();
    lastCompleted = completed;
    await interval.wait(options.signal);
  }
}

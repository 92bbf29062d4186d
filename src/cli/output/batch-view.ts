/**
 * A batch request for people: its descriptor and counters as aligned pairs, a one-line
 * progress summary, and the next command to run.
 */
import type { BatchRequest, PresendClient } from '../../client/index.js';
import type { Progress } from './progress.js';
import { renderPairs } from './table.js';

const COUNTER_ORDER = ['total', 'unique', 'duplicates', 'pending', 'completed', 'failed', 'rechecking'];

export function renderBatch(batch: BatchRequest): string {
  const { request, counters } = batch;
  const pairs: [string, string][] = [
    ['id', request.id],
    ['mode', request.mode],
    ['state', request.state],
    ['created', request.createdAt],
    ['finalized', String(request.finalized)],
    ['partial', String(request.partial)],
    ['counts may change', String(request.countsMayChange)],
  ];
  if (request.errorCode) pairs.push(['error', request.errorCode]);
  if (request.retentionExpiresAt) pairs.push(['kept until', request.retentionExpiresAt]);
  if (batch.replayed) pairs.push(['replayed', 'true (same request as the first submission)']);
  const ordered = [...COUNTER_ORDER.filter((key) => key in counters), ...Object.keys(counters).filter((key) => !COUNTER_ORDER.includes(key))];
  for (const key of ordered) pairs.push([key, String(counters[key])]);
  pairs.push(['correlation id', batch.requestId]); // the HTTP call's requestId, not the batch id above
  return renderPairs(pairs);
}

/** How far along: finished items (completed + failed) of the unique addresses. */
export function batchProgress(batch: BatchRequest): { done: number; total: number; detail: string } {
  const { counters } = batch;
  const done = (counters.completed ?? 0) + (counters.failed ?? 0);
  const total = counters.unique ?? counters.total ?? done;
  const rechecking = counters.rechecking ?? 0;
  return { done, total, detail: `${batch.request.state}${rechecking > 0 ? `, ${rechecking} rechecking${untilNext(counters.nextRecheckInSeconds ?? null)}` : ''}` };
}

/** " (next in 4 min 10 s, at 14:32:05)": when progress moves again while rechecks wait. */
export function untilNext(seconds: number | null, now: Date = new Date()): string {
  if (seconds === null) return '';
  if (seconds === 0) return ' (next one due now)';
  const at = new Date(now.getTime() + seconds * 1000).toLocaleTimeString('en-GB', { hour12: false });
  const wait = seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
  return ` (next in ${wait}, at ${at})`;
}

/** Polls a batch until it is completed or failed, moving the command's progress bar. */
export async function waitWithProgress(client: PresendClient, id: string, progress: Progress): Promise<BatchRequest> {
  return client.waitForRequest(id, {
    onProgress: (current) => {
      const { done, total, detail } = batchProgress(current);
      progress.update('verifying', done, total, detail);
    },
  });
}

export function nextSteps(batch: BatchRequest): string {
  const id = batch.request.id;
  if (batch.request.finalized) return `Results: presend results ${id} --all --out results.csv`;
  if (batch.request.state === 'failed') return `The request failed (${batch.request.errorCode ?? 'no error code'}); partial results: presend results ${id} --all`;
  return `Follow it: presend job ${id} --wait   Results when done: presend results ${id} --all --out results.csv`;
}

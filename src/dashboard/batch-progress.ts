/**
 * A batch's progress in words, the same for the page as first drawn and for each server-sent
 * event (dashboard.js shows what it is sent, so the wording lives here only). While a list is
 * still being read into its batch, the items written so far are not the batch: the counters
 * say "1 of 1,500" when the list holds 3,000, so the words count rows of the list instead.
 */
import { count } from './layout.js';
import type { Counters, RequestState } from '../store/batch-request.js';

export interface BatchProgress {
  text: string;
  value: number;
  max: number;
  /** The list is still being read into the batch: unique and duplicate counts still grow. */
  filling: boolean;
}

/** Why progress stands still: greylisted addresses waiting for their recheck, and when the next is due. */
function rechecksWaiting(c: Counters): string {
  if (c.rechecking === 0 || c.nextRecheckInSeconds === undefined) return '';
  return ` — ${c.rechecking} waiting for a greylisting recheck, the next in ${c.nextRecheckInSeconds} s`;
}

/** `listRowsWritten`: rows of the list copied into the batch so far; null once all are (or for a batch of addresses). */
export function batchProgress(state: RequestState, c: Counters, listRowsWritten: number | null): BatchProgress {
  const done = c.completed + c.failed;
  const final = state === 'completed' || state === 'failed';
  if (listRowsWritten !== null && !final) {
    return {
      text: `Reading the list into the batch: ${count(listRowsWritten)} of ${count(c.total)} rows so far — ${count(done)} ${done === 1 ? 'address' : 'addresses'} final${rechecksWaiting(c)}`,
      value: done,
      max: Math.max(1, c.total),
      filling: true,
    };
  }
  const percent = Math.floor((100 * done) / Math.max(1, c.unique));
  return { text: `${percent} % — ${count(done)} of ${count(c.unique)} addresses final${rechecksWaiting(c)}`, value: done, max: Math.max(1, c.unique), filling: false };
}

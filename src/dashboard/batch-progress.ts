/**
 * A batch's progress in words, the same for the page as first drawn and for each server-sent
 * event (dashboard.js shows what it is sent, so the wording lives here only). While a list is
 * still being read into its batch, the items written so far are not the batch: the counters
 * say "1 of 1,500" when the list holds 3,000, so the words count rows of the list instead.
 */
import { count, whenText } from './layout.js';
import type { Counters, RequestState } from '../store/batch-request.js';

export interface BatchProgress {
  text: string;
  value: number;
  max: number;
  /** The list is still being read into the batch: unique and duplicate counts still grow. */
  filling: boolean;
}

/** Rechecks waiting because every egress route is paused for their provider (BatchRequestView.waitingForRoute). */
export type WaitingForRoute = { count: number; retryAt: string } | null | undefined;

/**
 * Why progress stands still: addresses whose mail servers refuse our probes for now (every egress
 * route paused for their provider: nothing is known about them yet, they are asked again when a
 * route comes back), and greylisted addresses waiting for their recheck, with when the next is due.
 * The owner is told nothing of the routes themselves: they are the operator's.
 */
function rechecksWaiting(c: Counters, forRoute: WaitingForRoute): string {
  if (c.rechecking === 0) return '';
  const refused = Math.min(forRoute?.count ?? 0, c.rechecking);
  const greylisted = c.rechecking - refused;
  const parts: string[] = [];
  if (refused > 0 && forRoute) {
    parts.push(`waiting: the mail servers of ${count(refused)} ${refused === 1 ? 'address' : 'addresses'} refuse our probes for now; retrying at ${whenText(forRoute.retryAt)}`);
  }
  if (greylisted > 0 && c.nextRecheckInSeconds !== undefined) {
    parts.push(refused > 0 ? `${greylisted} waiting for a greylisting recheck` : `${greylisted} waiting for a greylisting recheck, the next in ${c.nextRecheckInSeconds} s`);
  }
  return parts.length > 0 ? ` — ${parts.join('; ')}` : '';
}

/** `listRowsWritten`: rows of the list copied into the batch so far; null once all are (or for a batch of addresses). */
export function batchProgress(state: RequestState, c: Counters, listRowsWritten: number | null, waitingForRoute: WaitingForRoute = null): BatchProgress {
  const done = c.completed + c.failed;
  const final = state === 'completed' || state === 'failed';
  if (listRowsWritten !== null && !final) {
    return {
      text: `Reading the list into the batch: ${count(listRowsWritten)} of ${count(c.total)} rows so far — ${count(done)} ${done === 1 ? 'address' : 'addresses'} final${rechecksWaiting(c, waitingForRoute)}`,
      value: done,
      max: Math.max(1, c.total),
      filling: true,
    };
  }
  const percent = Math.floor((100 * done) / Math.max(1, c.unique));
  return { text: `${percent} % — ${count(done)} of ${count(c.unique)} addresses final${rechecksWaiting(c, waitingForRoute)}`, value: done, max: Math.max(1, c.unique), filling: false };
}

/**
 * How long feedback events are kept (docs/feedback.md, PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS).
 * The retention purge deletes each event once it happened longer ago than that; the address
 * summary it was folded into (last hard bounce, soft bounces, last delivery, complaints) stays,
 * so the verdicts and `history` do not change. What goes is the event itself: the detail rows the
 * dashboard lists, and the id that made a second copy of it a duplicate.
 *
 * So an event older than the retention is not taken either: it may be one that was taken and
 * purged already (a file imported again, an old export), and taking it again would count its soft
 * bounce or complaint twice. Purge and refusal share one cutoff — the time the event happened —
 * so everything that can still be taken is still there to be recognised.
 */
import type { FeedbackEvent } from './events.js';

export const DEFAULT_FEEDBACK_EVENTS_RETENTION_DAYS = 365;
const DAY_MS = 86_400_000;

/** Events that happened at or before this instant are purged, and refused when given again. */
export function feedbackEventCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

export function isPastRetention(event: Pick<FeedbackEvent, 'at'>, cutoff: Date): boolean {
  return Date.parse(event.at) <= cutoff.getTime();
}

/** The problem reported for such an event. */
export const pastRetentionProblem = (retentionDays: number): string =>
  `the event happened more than ${retentionDays} days ago, longer than feedback events are kept (PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS): it is not taken, as it may have been taken and purged already`;

/**
 * How many recipients the next pipelined group may carry so that the errors it is expected
 * to bring fit the session's error budget. Replies to a pipelined group cannot be stopped
 * half-way, so the group is sized before any of them is known.
 *
 * With an estimated refusal share r learnt from n recipients, k recipients bring k·r refusals
 * on average. Their spread has two parts: the binomial draw, k·r·(1−r), and the estimate's own
 * uncertainty, k²·r·(1−r)/n (a host's share is known only after some replies; a new host is
 * judged by the engine-wide share, weighted as a few recipients). The group takes the largest
 * k whose mean plus three standard deviations fits the room left, which is the budget plus one:
 * a session then goes past the budget by more than one error — where Postfix, the default
 * budget of 8 assumes, starts to slow down — in about one group in a thousand.
 */

/** Standard deviations of margin above the expected refusals. */
const MARGIN_SD = 3;
/** The budget may be overshot by this much before the limit it protects is reached. */
export const BUDGET_SLACK = 1;

/**
 * Errors a session may reach even if every recipient of a group were refused: twice the
 * budget and two more (18 for the default 8), under Postfix's smtpd_hard_error_limit of 20 —
 * however wrong the estimate, a group never brings the session to the 421 that ends it.
 */
export function worstCaseCeiling(errorBudget: number): number {
  return 2 * errorBudget + 2;
}

export interface RefusalEstimate {
  /** Expected share of refused recipients. */
  rate: number;
  /** Recipients the estimate rests on (prior weight included). */
  weight: number;
}

function fits(k: number, room: number, r: number, weight: number): boolean {
  const variance = k * r * (1 - r) + (k * k * r * (1 - r)) / weight;
  return k * r + MARGIN_SD * Math.sqrt(variance) <= room;
}

/**
 * Largest k in 1…cap whose expected refusals, with margin, fit `room` — and never fewer than
 * the room itself: that many stay within it even if every one is refused. At least one: a
 * session always asks something.
 */
export function recipientsForRoom(room: number, estimate: RefusalEstimate, cap: number): number {
  if (cap <= 0) return 0;
  if (room <= 0) return 1;
  const r = Math.min(1, Math.max(0.001, estimate.rate));
  const weight = Math.max(1, estimate.weight);
  let k = Math.max(1, Math.min(cap, Math.floor(room)));
  while (k < cap && fits(k + 1, room, r, weight)) k++;
  return k;
}

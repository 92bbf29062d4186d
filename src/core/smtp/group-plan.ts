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
  /**
   * Whether the host's own share is known (enough of its recipients answered). Until it is, a
   * group is planned for the worst case — every recipient refused — so first contact stays
   * under every limit whatever the list holds (a domain whose every address is gone).
   */
  known: boolean;
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
  if (!estimate.known) return k;
  while (k < cap && fits(k + 1, room, r, weight)) k++;
  return k;
}

/** What the next group of a session is planned from: the queue, the session so far, and the host as known. */
export interface GroupPlanInput {
  /** Recipients waiting; `urgent` of them (catch-all probes, sure refusals) at its head. */
  waiting: number;
  urgent: number;
  /** Sessions of this host free to take a group now (the waiting recipients are spread over them). */
  freeSessions: number;
  /** Recipients per transaction (configured, or the host's learnt limit). */
  rcptLimit: number;
  /** Recipients this session may still carry (a per-connection cap), or null when unbounded. */
  sessionRcptsLeft: number | null;
  /** Errors the host's sessions plan to collect, and the errors this session has collected. */
  errorBudget: number;
  sessionErrors: number;
  /**
   * Errors one transaction may collect, or null when the host counts errors per session only.
   * Exim setups delay each unknown recipient from the 4th of a message (an ACL `delay` growing
   * with $rcpt_fail_count): 3 until the host shows (or its banner says) otherwise.
   */
  transactionErrors: number | null;
  estimate: RefusalEstimate;
  /** Transactions this session has run, and what opening a fresh one costs here, in round trips. */
  transactionsDone: number;
  setupRounds: number;
  /**
   * Transactions the group may carry (1 unless the session pipelines and the host counts
   * refusals per message: then RSET and MAIL start the next one in the same write), and a fresh
   * session's first group.
   */
  transactionsLeft: number;
  transactionsPerSession: number;
  /**
   * Recipients per group when a lockstep session goes on in one open message (no RSET and MAIL
   * between its groups, session.ts canGoOn): small groups cost nothing there, bring results as
   * they are known and let every session of the host share its line to the end. Null otherwise.
   */
  groupCap: number | null;
}

export interface GroupPlan {
  /** Recipients to take from the head of the queue (0: none now). */
  size: number;
  /** How they go in transactions: the recipients of each, in order (one entry unless the group carries several). */
  transactions: number[];
  /** Errors the session expects to have room for after the group (below 1: it ends with this group). */
  roomAfter: number;
  /** True when none is taken because a fresh session would serve the waiting recipients better. */
  freshIsBetter: boolean;
}

/**
 * The next group: balanced over the free sessions, sized to the error room left in the session
 * (budget plus slack) and in each transaction, and empty when a fresh session would serve the
 * waiting recipients better than the few this one's budget still allows (a group costs one
 * round trip, a fresh session its setup and one more, for a full budget's worth).
 *
 * At a host that counts refusals per message (transactionErrors) a pipelined group carries
 * several transactions, each sized to that count: the catch-all probe goes in the first.
 */
export function planGroup(input: GroupPlanInput): GroupPlan {
  const room = input.errorBudget + BUDGET_SLACK - input.sessionErrors;
  const perMessage = input.transactionErrors;
  // Several messages per group only at a host known to keep no count of refusals per session
  // (Exim, next-group.ts sessionErrorBudget): every message fits its cap whatever the share. At
  // a host not known, one message per group, each ended by EHLO: the session learns between
  // groups, and a limit per session it has not shown yet (Sendmail's BadRcptThrottle) is met one
  // group at a time, not with a whole session's budget in one write.
  const severalMessages = perMessage !== null && input.errorBudget === Number.POSITIVE_INFINITY;
  const transactionsLeft = severalMessages ? Math.max(1, input.transactionsLeft) : 1;
  const perGroup = input.rcptLimit * transactionsLeft;
  const perSession = input.sessionRcptsLeft === null ? perGroup : Math.max(0, Math.min(perGroup, input.sessionRcptsLeft));
  const balanced = Math.min(perSession, Math.ceil(input.waiting / Math.max(1, input.freeSessions)), input.groupCap ?? Number.POSITIVE_INFINITY);
  const sure = Math.min(balanced, input.urgent, input.rcptLimit);
  const worst = worstCaseCeiling(input.errorBudget) - input.sessionErrors - sure;
  const cap = Math.min(balanced - sure, Math.max(1, worst));
  const fitting = (errors: number, most: number): number => recipientsForRoom(errors, input.estimate, most);
  let rest = room - sure >= 1 ? fitting(room - sure, cap) : sure > 0 || balanced === 0 ? 0 : 1;
  let transactions = [sure + rest];
  if (perMessage !== null) {
    // Each message's own room (the probe counted in the first): a per-message delay starts past it.
    transactions = splitIntoMessages(sure, rest, perMessage, input.rcptLimit, transactionsLeft, fitting);
    rest = transactions.reduce((sum, n) => sum + n, 0) - sure;
  }
  if (input.transactionsDone > 0 && sure === 0 && input.groupCap === null) {
    const freshMessages = severalMessages ? Math.max(1, input.transactionsPerSession) : 1;
    const perFreshMessage = perMessage === null ? input.rcptLimit : fitting(perMessage, input.rcptLimit);
    const fresh = Math.min(fitting(input.errorBudget + BUDGET_SLACK, input.rcptLimit * freshMessages), perFreshMessage * freshMessages);
    if (rest * (input.setupRounds + 1) < fresh && input.waiting >= fresh) return { size: 0, transactions: [], roomAfter: 0, freshIsBetter: true };
  }
  // Until the host's share is known every recipient is counted as a refusal: a session that has
  // used its room ends with this group (QUIT rides it) instead of greeting again.
  const expected = input.estimate.known ? rest * input.estimate.rate : rest;
  const size = Math.min(balanced, sure + rest);
  return { size, transactions: size === 0 ? [] : transactions, roomAfter: room - sure - expected, freshIsBetter: false };
}

/**
 * `sure` sure refusals (the probes) and up to `rest` recipients split into at most `most`
 * messages of `rcptLimit` recipients, each message's refusals — with margin — under `perMessage`.
 * Empty messages are left out; the first holds the probes.
 */
function splitIntoMessages(sure: number, rest: number, perMessage: number, rcptLimit: number, most: number, fitting: (errors: number, most: number) => number): number[] {
  const sizes: number[] = [];
  let left = rest;
  for (let t = 0; t < most && (t === 0 || left > 0); t++) {
    const probes = t === 0 ? sure : 0;
    const room = perMessage - probes;
    const take = room >= 1 ? Math.min(left, fitting(room, Math.min(left, rcptLimit - probes))) : 0;
    if (probes + take > 0) sizes.push(probes + take);
    left -= take;
    if (take === 0 && t > 0) break;
  }
  return sizes;
}

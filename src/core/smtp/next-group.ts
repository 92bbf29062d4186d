/**
 * The next group of one session, as its host is known (host-profile.ts): what group-plan.ts is
 * asked to size, and whether the group ends the session (QUIT rides it) or an EHLO ends it and
 * the session may go on. Pure.
 */
import { BUDGET_SLACK, type GroupPlanInput, type RefusalEstimate } from './group-plan.js';
import type { HostProfile } from './host-profile.js';

/** Errors the session may still collect (budget plus the slack group-plan.ts allows). */
export function errorRoom(profile: Pick<HostProfile, 'errorBudget'>, sessionErrors: number): number {
  return profile.errorBudget + BUDGET_SLACK - sessionErrors;
}

/** The queue and the session as the next group finds them. */
export interface GroupSituation {
  waiting: number;
  /** Urgent entries (catch-all probes) at the head of the queue. */
  urgent: number;
  freeSessions: number;
  /** The configured recipients per transaction. */
  maxRcptsPerTransaction: number;
  /** Recipients this session has carried (probes counted: a per-connection cap counts every RCPT). */
  carried: number;
  sessionErrors: number;
  transactionsDone: number;
  setupRounds: number;
  estimate: RefusalEstimate;
}

/** Recipients the session may still carry under the host's per-connection cap; null when unbounded. */
export function sessionRcptsLeft(profile: Pick<HostProfile, 'sessionRcpts'>, carried: number): number | null {
  return profile.sessionRcpts === null ? null : profile.sessionRcpts - carried;
}

export function groupPlanInput(profile: HostProfile, situation: GroupSituation): GroupPlanInput {
  // At a host that holds every reply anyway, a refusal costs no more than an acceptance: the
  // session is filled to its recipient cap instead of ended early to dodge a slowdown.
  const slow = profile.slowEveryReply;
  return {
    waiting: situation.waiting,
    urgent: situation.urgent,
    freeSessions: situation.freeSessions,
    rcptLimit: Math.min(situation.maxRcptsPerTransaction, profile.rcptLimit),
    sessionRcptsLeft: sessionRcptsLeft(profile, situation.carried),
    errorBudget: slow ? Math.max(profile.errorBudget, profile.sessionRcpts ?? profile.rcptLimit) : profile.errorBudget,
    sessionErrors: situation.sessionErrors,
    transactionErrors: slow ? null : profile.transactionErrors,
    estimate: situation.estimate,
    transactionsDone: situation.transactionsDone,
    setupRounds: situation.setupRounds,
  };
}

export interface GroupEnd {
  /** Only one group per session: groups cannot be checked by a repeated EHLO, or the host's replies once fell out of step. */
  oneGroup: boolean;
  /** Greetings the session has sent, and the most the host takes (null: no limit known). */
  greetings: number;
  greetingsLimit: number | null;
  /** This group is the session's last transaction allowed. */
  lastTransaction: boolean;
  /** Errors of room the session expects after the group, and recipients it may still carry after it (null: unbounded). */
  roomAfter: number;
  rcptsLeftAfter: number | null;
}

/** QUIT rides the group when the session certainly ends with it; otherwise EHLO ends (and checks) it. */
export function groupEndsSession(end: GroupEnd): boolean {
  const greetingsLeft = end.greetingsLimit === null || end.greetings < end.greetingsLimit;
  return end.oneGroup || !greetingsLeft || end.lastTransaction || end.roomAfter < 1 || (end.rcptsLeftAfter !== null && end.rcptsLeftAfter < 1);
}

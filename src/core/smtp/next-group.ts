/**
 * The next group of one session, as its host is known (host-profile.ts): what group-plan.ts is
 * asked to size, and whether the group ends the session (QUIT rides it) or an EHLO ends it and
 * the session may go on. Pure.
 */
import { BUDGET_SLACK, type GroupPlanInput, type RefusalEstimate } from './group-plan.js';
import type { HostProfile } from './host-profile.js';

/**
 * Errors one session plans to collect: the host's budget — or no budget at a host that keeps no
 * count of refused recipients per session (host-profile.ts noSessionErrors: Exim counts them per
 * message, its ACLs reading $rcpt_fail_count, which each message starts again at 0, and each
 * message keeps under its cap, transactionErrors; OpenSMTPD counts none — measured on 6.8: 120
 * refused recipients in one session, no delay, no kick).
 */
export function sessionErrorBudget(profile: Pick<HostProfile, 'errorBudget' | 'noSessionErrors'>): number {
  return profile.noSessionErrors ? Number.POSITIVE_INFINITY : profile.errorBudget;
}

/** Errors the session may still collect (budget plus the slack group-plan.ts allows). */
export function errorRoom(profile: Pick<HostProfile, 'errorBudget' | 'noSessionErrors'>, sessionErrors: number): number {
  return sessionErrorBudget(profile) + BUDGET_SLACK - sessionErrors;
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
  /** Whether the session pipelines (a group may then carry several transactions), and the transactions it may still run and runs at most. */
  pipelined: boolean;
  transactionsLeft: number;
  transactionsPerSession: number;
}

/** Recipients per group of a lockstep session that goes on in one message: about a third of a second of round trips at 80 ms. */
export const LOCKSTEP_GROUP = 4;

/**
 * Whether a session's groups go on in one open message (session.ts canGoOn): in lockstep (each
 * RCPT is its own round trip anyway) at a host with no per-message refusal cap to keep under
 * (a count that would run on across the groups).
 */
export function goesOnInMessage(pipelined: boolean, profile: Pick<HostProfile, 'transactionErrors'>): boolean {
  return !pipelined && profile.transactionErrors === null;
}

/** Recipients the session may still carry under the host's per-connection cap; null when unbounded. */
export function sessionRcptsLeft(profile: Pick<HostProfile, 'sessionRcpts'>, carried: number): number | null {
  return profile.sessionRcpts === null ? null : profile.sessionRcpts - carried;
}

export function groupPlanInput(profile: HostProfile, situation: GroupSituation): GroupPlanInput {
  // At a host that holds every reply anyway, a refusal costs no more than an acceptance: the
  // session is filled to its recipient cap instead of ended early to dodge a slowdown.
  const slow = profile.slowEveryReply;
  const budget = sessionErrorBudget(profile);
  return {
    waiting: situation.waiting,
    urgent: situation.urgent,
    freeSessions: situation.freeSessions,
    rcptLimit: Math.min(situation.maxRcptsPerTransaction, profile.rcptLimit),
    sessionRcptsLeft: sessionRcptsLeft(profile, situation.carried),
    errorBudget: slow ? Math.max(budget, profile.sessionRcpts ?? profile.rcptLimit) : budget,
    sessionErrors: situation.sessionErrors,
    transactionErrors: slow ? null : profile.transactionErrors,
    estimate: situation.estimate,
    transactionsDone: situation.transactionsDone,
    setupRounds: situation.setupRounds,
    transactionsLeft: situation.pipelined ? situation.transactionsLeft : 1,
    transactionsPerSession: situation.pipelined ? situation.transactionsPerSession : 1,
    groupCap: goesOnInMessage(situation.pipelined, profile) ? LOCKSTEP_GROUP : null,
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

/**
 * How a group that leaves the session open is closed. A pipelined group ends with EHLO: its
 * multi-line reply, starting with the server's name, is one nothing else of the group resembles,
 * so its arrival at its own place proves every reply before it in step (RSET's or NOOP's "250 Ok"
 * would prove nothing beside RCPT's). A lockstep group — the server offers no PIPELINING — needs
 * no closing command at all: each reply was read before the next command went out, and a reply
 * waiting unasked is caught before each write; the next transaction starts with RSET (one line,
 * one round trip, where the EHLO was one more round trip and, at OpenSMTPD, "503 5.5.1 Invalid
 * command: Already identified": a repeated greeting is refused there).
 */
export function keepAliveAfter(pipelined: boolean): 'ehlo' | 'none' {
  return pipelined ? 'ehlo' : 'none';
}

/**
 * What ends a group: EHLO or nothing while the session goes on (keepAliveAfter); QUIT riding
 * the group that ends it — unless the host answers QUIT late (Exim sets TCP_CORK before its 221,
 * which then waits up to 200 ms, and every answer of the group with it). There the group ends
 * with EHLO (nothing in lockstep) when the session may greet again, and QUIT follows on its own
 * (session-driver.ts): the answers count at once, the 221 is awaited beside the next sessions.
 */
export function groupEnder(
  final: boolean,
  session: { pipelined: boolean; canVerifyWithEhlo: boolean; greetings: number },
  profile: Pick<HostProfile, 'slowQuit' | 'greetings'>,
): 'quit' | 'ehlo' | 'none' {
  if (!final) return keepAliveAfter(session.pipelined);
  if (!profile.slowQuit) return 'quit';
  if (!session.pipelined) return 'none';
  const greetingsLeft = profile.greetings === null || session.greetings < profile.greetings;
  return session.canVerifyWithEhlo && greetingsLeft ? 'ehlo' : 'quit';
}

/**
 * Whether a session may run only one group: its host's replies fell out of step once (strict:
 * one command at a time, one group per session), or its groups are pipelined and cannot be
 * closed by a repeated EHLO (the server answered HELO only). Lockstep groups need no closing
 * command (keepAliveAfter), so a server without PIPELINING is asked in several groups.
 */
export function onlyOneGroup(session: { strict: boolean; pipelined: boolean; canVerifyWithEhlo: boolean }): boolean {
  return session.strict || (session.pipelined && !session.canVerifyWithEhlo);
}

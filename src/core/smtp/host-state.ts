/**
 * What one MX host's queue holds, in named parts: who waits (the line), our sessions (their
 * counts), the path (the link), the pause the host asked for (the back-off), and what is known
 * of the host (its profile, shared through the learning). The queue (host-queue.ts) and the
 * sessions it drives (session-driver.ts) work on it; the readings below are the decisions of
 * session-count.ts and put-back.ts applied to it.
 */
import type { Backoff } from './backoff.js';
import type { HostLink } from './host-link.js';
import type { HostLearning, HostProfile } from './host-profile.js';
import { putBackRules, type HostQueueSettings } from './host-queue-settings.js';
import type { PutBackRules } from './put-back.js';
import { allowedSessions, fewerSessions, sessionsForPath, type SessionCounts } from './session-count.js';
import type { WaitingLine } from './waiting-line.js';
import { BUDGET_SLACK } from './group-plan.js';
import { sessionErrorBudget } from './next-group.js';

export interface HostState {
  readonly host: string;
  readonly settings: HostQueueSettings;
  readonly now: () => number;
  readonly line: WaitingLine;
  readonly counts: SessionCounts;
  link: HostLink;
  readonly backoff: Backoff;
  /** What is known of the host; replaced once the stored profile is loaded. */
  profile: HostProfile;
  readonly learning: HostLearning;
  /** close() was called: nothing new starts, whatever waits ends aborted. */
  closing: boolean;
}

/** The session count with nothing lowered: the politeness cap and what the host taught. */
export function fullTarget(state: HostState): number {
  return Math.min(state.settings.maxSessions, state.profile.sessions);
}

/** Sessions at once this host allows as known: the politeness cap, what it taught, the limit its MTA keeps (session-count.ts). */
export function allowed(state: HostState): number {
  return allowedSessions(state.counts, state.profile.sessionCeiling);
}

/** Sessions at once worth having now: sized to the path, or to how short the host's error budget makes each session (session-count.ts). */
export function wanted(state: HostState): number {
  const forPath = sessionsForPath(state.link.pathMs ?? 0, state.profile.slowEveryReply, allowed(state));
  return Math.max(forPath, Math.min(allowed(state), sessionsForBudget(state)));
}

/**
 * Sessions the waiting recipients need when each carries only what the host's error budget
 * lets it (0 while the host's refusal share is unknown): a domain whose every address is gone
 * needs one session per nine of them at a stock Postfix, and their setups run side by side
 * rather than one after the other.
 */
function sessionsForBudget(state: HostState): number {
  const estimate = state.learning.refusals(state.host);
  if (!estimate.known || state.line.length === 0) return 0;
  const budget = sessionErrorBudget(state.profile);
  if (budget === Number.POSITIVE_INFINITY) return 0;
  const perSession = (budget + BUDGET_SLACK) / Math.max(estimate.rate, 1 / Math.max(1, state.profile.rcptLimit));
  return Math.ceil(state.line.length / Math.max(1, perSession));
}

/** The host is busier than our sessions: fewer at once from now on. */
export function useFewerSessions(state: HostState): void {
  state.counts.target = fewerSessions(state.counts, allowed(state));
}

/** The host asked for time (throttling, a 421): wait before the next session, and use fewer at once. */
export function hostPaused(state: HostState): void {
  state.backoff.extend();
  useFewerSessions(state);
}

/** The rules the put-back decisions (put-back.ts) read, as of now. */
export function rulesNow(state: HostState): PutBackRules {
  return putBackRules(state.settings, state.now(), state.closing);
}

/**
 * The settings of one MX host's queue (host-queue.ts), their defaults, and what a queue knows
 * of a host it has no shared profile for.
 */
import type { FactsCache } from '../ports.js';
import { FIRST_CONTACT_SESSION_RCPTS, FIRST_CONTACT_TRANSACTION_ERRORS, HostLearning } from './host-profile.js';
import type { PutBackRules } from './put-back.js';
import type { SessionSettings } from './session.js';

export interface HostQueueSettings {
  session: Omit<SessionSettings, 'useStartTls' | 'strict'>;
  maxSessions: number;
  maxRcptsPerTransaction: number;
  maxTransactionsPerSession: number;
  /** How long an idle session waits for more work before QUIT. */
  sessionIdleMs: number;
  /** Sessions an address may be sent in when they time out or drop under it. */
  maxAttempts: number;
  /** Times an address may go back to the queue because the host refused, throttled or slowed us. Default 5. */
  maxRequeues?: number;
  /** Errors one session plans to collect at a host not known yet (host-profile.ts). Default 8. */
  errorBudget?: number;
  /** Errors one transaction plans to collect at a host not known yet; null: the session's budget alone. Default 3 (host-profile.ts). */
  transactionErrors?: number | null;
  /** Recipients one session carries at a host not known yet; null: unbounded. Default 20 (host-profile.ts). */
  sessionRcpts?: number | null;
  /** First wait after the host refused or throttled us; doubled each time up to maxBackoffMs. Defaults 1000 / 8000 ms. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * How long the host may keep pausing an address it never answered about (throttling replies,
   * 421s at the greeting or asking for time) before the address ends `host_throttled`
   * (recheck_scheduled, never TRANSIENT). Default 3 minutes (PRESEND_HOST_THROTTLE_BOUND_MS).
   */
  hostThrottleBoundMs?: number;
}

export const DEFAULT_ERROR_BUDGET = 8;
export const DEFAULT_HOST_THROTTLE_BOUND_MS = 180_000;
const DEFAULT_MAX_REQUEUES = 5;
export const DEFAULT_BACKOFF_MS = 1000;
export const DEFAULT_MAX_BACKOFF_MS = 8000;
const NO_CACHE: FactsCache = { get: () => Promise.resolve(undefined), set: () => Promise.resolve() };

/** A queue without the engine's shared learning (tests, a queue on its own): first-contact defaults from its settings, kept nowhere. */
export function learningOfOwn(settings: HostQueueSettings): HostLearning {
  return new HostLearning(
    NO_CACHE,
    {
      errorBudget: settings.errorBudget ?? DEFAULT_ERROR_BUDGET,
      transactionErrors: settings.transactionErrors === undefined ? FIRST_CONTACT_TRANSACTION_ERRORS : settings.transactionErrors,
      sessionRcpts: settings.sessionRcpts === undefined ? FIRST_CONTACT_SESSION_RCPTS : settings.sessionRcpts,
      sessions: settings.maxSessions,
      rcptLimit: settings.maxRcptsPerTransaction,
      transactions: settings.maxTransactionsPerSession,
    },
    0,
  );
}

/** The rules the put-back decisions (put-back.ts) read, as of `now`. */
export function putBackRules(settings: HostQueueSettings, now: number, closing: boolean): PutBackRules {
  return {
    now,
    closing,
    maxRequeues: settings.maxRequeues ?? DEFAULT_MAX_REQUEUES,
    hostThrottleBoundMs: settings.hostThrottleBoundMs ?? DEFAULT_HOST_THROTTLE_BOUND_MS,
  };
}

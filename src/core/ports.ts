/**
 * The engine's view of the outside world. Everything the pipeline touches — DNS, SMTP
 * sockets, the clock, per-MX politeness, caches, operator lists — comes in through these
 * small interfaces, so tests run the real thing on loopback (or a fake clock) without
 * patching modules, and the PostgreSQL deployment can share limits and caches across workers.
 */
import type { EngineResult, PublicVerdict } from './types.js';
import type { EgressStats, RoutePause } from './egress/route-pause.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Bounds concurrent SMTP sessions per MX host. In one process an in-memory semaphore;
 * with PostgreSQL a shared counter so the limit holds summed over all workers.
 */
export interface SessionLimiter {
  /** Resolves with a release function once a session slot for `mxHost` is free. */
  acquire(mxHost: string, signal?: AbortSignal): Promise<() => Promise<void> | void>;
}

/** A TTL cache for domain facts (MX set, catch-all status, provider). */
export interface FactsCache {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlMs: number): Promise<void>;
}

/**
 * Where the egress pool keeps its routes' pauses per provider (issue 22): in process memory
 * when one process probes (SQLite), in a table on PostgreSQL, so a route that a provider refused
 * through worker A is paused for worker B too. The backoff itself is decided by RouteHealth
 * (egress/route-health.ts); this only keeps the records, one per route and scope.
 */
export interface RoutePauses {
  /** Every record kept, lapsed ones included (their strikes count when the next block comes). */
  list(): Promise<RoutePause[]>;
  /**
   * Replaces the record of (route, scope) by `next(previous)` as one atomic step: two workers
   * blocked at once queue on the record, the second sees the first's pause. Returns what is kept.
   */
  update(route: string, scope: string, next: (previous: RoutePause | null) => RoutePause): Promise<RoutePause>;
  /** Forgets the record of (route, scope) if its pause ended by `nowMs` (an ordinary answer came through again). */
  forgetLapsed(route: string, scope: string, nowMs: number): Promise<void>;
}

/** What a politeness token pays for: opening an SMTP session, or sending one RCPT (egress/politeness.ts). */
export type PolitenessKind = 'session' | 'rcpt';

/**
 * Where the egress politeness budgets are kept (issue 22): a token bucket per route × MX host ×
 * kind, refilled at `perMinute` and holding one token, so what one host sees from one route is
 * evenly spaced. In process memory when one process probes (SQLite), a row per bucket on
 * PostgreSQL, so every worker spends from the same budget. Takes one token, or says how long
 * until one is there; the waiting is the engine's (egress/polite-gate.ts).
 */
export interface PolitenessBudget {
  take(input: { route: string; host: string; kind: PolitenessKind; perMinute: number; nowMs: number }): Promise<{ granted: boolean; retryAfterMs: number }>;
}

/**
 * The time the politeness gate reads and waits on: the engine's clock and timers by default; a
 * test moves its own, so a minute's budget is spent without a minute's wait.
 */
export interface WaitClock {
  now(): number;
  /** Resolves after `ms` of this clock's time, or at once when `signal` aborts (never rejects). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Per-account and operator lists that turn an address into SPAMTRAP, BLACKLISTED or
 * UNDELIVERABLE_BOUNCED before any probe (docs/design.md §5).
 */
export interface OperatorLists {
  isSpamtrap?(email: string): boolean | Promise<boolean>;
  isBlocklistedDomain?(domainOrMx: string): boolean | Promise<boolean>;
  isHardBounced?(email: string): boolean | Promise<boolean>;
}

export interface VerifyOptions {
  signal?: AbortSignal;
  lists?: OperatorLists;
  /** Record how each verdict is reached: EngineResult.evidence (evidence/evidence.ts). */
  explain?: boolean;
}

/** The engine as the service, the worker and `presend check` use it. */
export interface Engine {
  /** Verify one address. Never throws for the address's behaviour: outcomes are data. */
  verify(address: string, options?: VerifyOptions): Promise<EngineResult>;
  /**
   * Verify many addresses, grouped by domain and MX so one SMTP session serves many of them.
   * `onResult` is called as soon as each result is known, in no particular order.
   */
  verifyMany(
    addresses: readonly string[],
    onResult: (result: EngineResult) => void | Promise<void>,
    options?: VerifyOptions,
  ): Promise<void>;
  /**
   * The result, when the engine knows it without any I/O or waiting (the sandbox: every
   * address but `slow@`); null otherwise. Lets the service store a check in the one write that
   * creates it. Optional: the live engine always goes to the network.
   */
  immediate?(address: string): EngineResult | null;
  /** The egress pool's recipients per route, blocks and pauses (several PRESEND_EGRESS routes); null with one route. */
  egressStats?(): EgressStats | null;
  /** Waits for the politeness budgets per route and kind; null when no budget is set. */
  politenessStats?(): PolitenessStats | null;
  close(): Promise<void>;
}

/** Verdict lookup for simulated truth (mail world) and sandbox keys. */
export type VerdictOf = (email: string) => PublicVerdict;

/** What /metrics shows: waits per route and kind, and recipients that ended `host_throttled` for it. */
export interface PolitenessStats {
  waits: Array<{ route: string; kind: PolitenessKind; count: number }>;
  tooLong: Array<{ route: string; count: number }>;
}

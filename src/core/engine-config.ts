/**
 * The engine's settings: what it reads of a process's configuration (declared here, filled by
 * src/config.ts from the environment — the engine imports nothing above it), plus tuning knobs
 * with documented defaults (tests shorten timeouts; benchmarks may raise batch sizes).
 */
import type { HostPort } from './dns/resolver.js';
import type { PrivateMxAllowance } from './dns/address-safety.js';
import type { EgressRoute } from './egress/egress-routes.js';
import { DEFAULT_REPLY_LIMITS, type ReplyLimits } from './replies/parse.js';
import { DEFAULT_HOST_THROTTLE_BOUND_MS } from './smtp/host-queue-settings.js';
import { FIRST_CONTACT_SESSION_RCPTS, FIRST_CONTACT_TRANSACTION_ERRORS } from './smtp/host-profile.js';

/** The settings of the engine a process configures (PresendConfig extends it; the variables are named in src/config.ts). */
export interface EngineSettings {
  /** Empty means the system resolver. */
  dnsServers: HostPort[];
  smtpPort: number;
  /** false: refuse private MX addresses; 'loopback': 127.0.0.0/8 and ::1 only; true: all. */
  allowPrivateMx: PrivateMxAllowance;
  /** Required before a live probe is made; null means "not configured" (live probes refuse). */
  heloName: string | null;
  mailFrom: string | null;
  smtpProxy: string | null;
  /**
   * The egress routes (PRESEND_EGRESS, src/core/egress/egress-routes.ts); without it, the one
   * route of PRESEND_SMTP_PROXY (or direct) and PRESEND_HELO_NAME. Empty without a HELO name.
   * With several, the engine spreads work over them by provider health
   * (src/core/egress/routed-dispatcher.ts); heloName, smtpProxy and smtpSourceAddress are the
   * first route's (the one route's settings when there is one). `presend doctor` checks each.
   */
  egress: EgressRoute[];
  /** Local address probe connections are bound to (the first egress route's `source`); null: the system's choice. */
  smtpSourceAddress: string | null;
  recheckDelayMs: number;
  /** Concurrent SMTP sessions allowed per MX host (summed over all workers on PostgreSQL). */
  maxSessionsPerMx: number;
  /** Per-step SMTP timeout (connect, banner, each reply). */
  smtpTimeoutMs: number;
  dnsTimeoutMs: number;
}

/** What createEngine takes: the settings (egress routes and source address optional), and any tuning to override. */
export type EngineConfig = Omit<EngineSettings, 'smtpSourceAddress' | 'egress'> &
  Partial<Pick<EngineSettings, 'smtpSourceAddress' | 'egress'>> &
  Partial<EngineTuning>;

export interface EngineTuning {
  /** RFC 5321 §4.5.3.1.8: servers must take at least 100 recipients per transaction. */
  maxRcptsPerTransaction: number;
  /** Transactions (RSET between them) before a session is closed and a new one opened. */
  maxTransactionsPerSession: number;
  /** Overall lifetime of one session. Default: 30 × smtpTimeoutMs, at least 60 s. */
  sessionMaxMs: number;
  /** How long an idle session waits for more addresses before QUIT. */
  sessionIdleMs: number;
  /** Sessions one address may be tried in when sessions break under it. */
  maxAttempts: number;
  /** MX hosts kept per domain (after sorting by preference). */
  maxMxHosts: number;
  maxCnameDepth: number;
  /** TTL of MX sets and host addresses. */
  dnsTtlMs: number;
  /** TTL of DNS failures (SERVFAIL/timeout): short, they are not facts. */
  dnsFailureTtlMs: number;
  /** TTL of a domain's catch-all status. */
  catchAllTtlMs: number;
  /** How long a host that could not be opened is skipped. */
  hostDownMs: number;
  replyLimits: ReplyLimits;
  /**
   * Errors (4xx/5xx replies) one SMTP session plans to collect at a host not known yet, the
   * catch-all probe counted: under Postfix's smtpd_soft_error_limit of 10 (docs/engine-sessions.md).
   */
  sessionErrorBudget: number;
  /**
   * Errors one transaction plans to collect at an MX host not known yet (3: under Exim's usual
   * ACL delay, from the 4th unknown recipient of a message); null: the session budget alone.
   */
  transactionErrorBudget: number | null;
  /** Recipients one session carries at an MX host not known yet (per-connection caps, Haraka's limit plugin); null: unbounded. */
  sessionRcptBudget: number | null;
  /** How long what was learnt about an MX host (error budget, sessions, limits) is kept in the FactsCache. */
  hostProfileTtlMs: number;
  /**
   * A reply this much later than the one before it is slow: a tarpit or an error sleep (real
   * servers wait a second or more: Postfix smtpd_error_sleep_time, Sendmail's throttles,
   * Exchange's tarpit of 5 s). Two in a row are needed before a session counts as slowed down.
   */
  slowReplyMs: number;
  /** Times an address goes back to its host's queue (421, throttling, error sleep, replies out of step) before it ends TRANSIENT. */
  maxRequeues: number;
  /** First back-off after a host refused or throttled us, doubled each time up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /**
   * How long a host may keep pausing an address it never answered about (throttling, 421s)
   * before the address ends `host_throttled`: recheck_scheduled with a retry window, never
   * TRANSIENT (PRESEND_HOST_THROTTLE_BOUND_MS, default 3 minutes).
   */
  hostThrottleBoundMs: number;
  /** Single checks (not batches) of one MX host in the engine at once; more end TRANSIENT at once (host-budget.ts). */
  maxChecksPerMxHost: number;
  /** Egress pool: first pause of a route a provider refuses, doubled per block in a row up to egressMaxPauseMs (egress/route-health.ts). */
  egressFirstPauseMs: number;
  egressMaxPauseMs: number;
  /**
   * Per-route politeness (egress/polite-gate.ts): new sessions and RCPTs per minute that one MX
   * host sees from one egress route, summed over every worker on PostgreSQL; 0: no limit (the
   * default). PRESEND_EGRESS_SESSIONS_PER_MINUTE_PER_HOST, PRESEND_EGRESS_RCPTS_PER_MINUTE_PER_HOST.
   */
  egressSessionsPerMinutePerHost: number;
  egressRcptsPerMinutePerHost: number;
}

export function resolveTuning(config: EngineConfig): EngineTuning {
  return {
    // At most 200: the reply reader refuses more than 256 unread replies (a flood guard).
    maxRcptsPerTransaction: Math.min(200, Math.max(1, config.maxRcptsPerTransaction ?? 100)),
    maxTransactionsPerSession: config.maxTransactionsPerSession ?? 10,
    sessionMaxMs: config.sessionMaxMs ?? Math.max(60_000, config.smtpTimeoutMs * 30),
    sessionIdleMs: config.sessionIdleMs ?? Math.min(500, config.smtpTimeoutMs),
    maxAttempts: config.maxAttempts ?? 2,
    maxMxHosts: config.maxMxHosts ?? 10,
    maxCnameDepth: config.maxCnameDepth ?? 8,
    dnsTtlMs: config.dnsTtlMs ?? 3_600_000,
    dnsFailureTtlMs: config.dnsFailureTtlMs ?? 0,
    catchAllTtlMs: config.catchAllTtlMs ?? 6 * 3_600_000,
    hostDownMs: config.hostDownMs ?? 60_000,
    replyLimits: config.replyLimits ?? DEFAULT_REPLY_LIMITS,
    sessionErrorBudget: Math.max(0, config.sessionErrorBudget ?? 8),
    transactionErrorBudget: config.transactionErrorBudget === undefined ? FIRST_CONTACT_TRANSACTION_ERRORS : config.transactionErrorBudget,
    sessionRcptBudget: config.sessionRcptBudget === undefined ? FIRST_CONTACT_SESSION_RCPTS : config.sessionRcptBudget,
    hostProfileTtlMs: config.hostProfileTtlMs ?? 24 * 3_600_000,
    slowReplyMs: config.slowReplyMs ?? 600,
    maxRequeues: config.maxRequeues ?? 5,
    backoffMs: config.backoffMs ?? 1000,
    maxBackoffMs: config.maxBackoffMs ?? 8000,
    hostThrottleBoundMs: config.hostThrottleBoundMs ?? DEFAULT_HOST_THROTTLE_BOUND_MS,
    maxChecksPerMxHost: Math.max(1, config.maxChecksPerMxHost ?? 100),
    egressFirstPauseMs: config.egressFirstPauseMs ?? 10 * 60_000,
    egressMaxPauseMs: config.egressMaxPauseMs ?? 6 * 3_600_000,
    egressSessionsPerMinutePerHost: Math.max(0, config.egressSessionsPerMinutePerHost ?? 0),
    egressRcptsPerMinutePerHost: Math.max(0, config.egressRcptsPerMinutePerHost ?? 0),
  };
}

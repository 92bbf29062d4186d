/**
 * What the engine reads from PresendConfig, plus tuning knobs with documented defaults
 * (tests shorten timeouts; benchmarks may raise batch sizes).
 */
import type { PresendConfig } from '../config.js';
import { DEFAULT_REPLY_LIMITS, type ReplyLimits } from './smtp/reply.js';

export type EngineConfig = Pick<
  PresendConfig,
  | 'dnsServers'
  | 'smtpPort'
  | 'allowPrivateMx'
  | 'heloName'
  | 'mailFrom'
  | 'smtpProxy'
  | 'recheckDelayMs'
  | 'maxSessionsPerMx'
  | 'smtpTimeoutMs'
  | 'dnsTimeoutMs'
> &
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
  };
}

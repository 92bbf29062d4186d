/**
 * The dispatcher every probe goes through: one MX dispatcher per egress route (its HELO name,
 * proxy and source address); with several routes the pool (egress/routed-dispatcher.ts) picks
 * one per recipient by provider health.
 */
import type { HostAddresses } from './dns/mail-hosts.js';
import type { EngineConfig, EngineTuning } from './engine-config.js';
import { RouteHealth } from './egress/route-health.js';
import { RoutedDispatcher, type ProbeDispatcher } from './egress/routed-dispatcher.js';
import { createMemoryPolitenessBudget } from './egress/memory-politeness-budget.js';
import { PoliteGate, systemWaitClock } from './egress/polite-gate.js';
import { PoliteDispatcher, politeLimiter } from './egress/politeness.js';
import type { Clock, PolitenessBudget, RoutePauses, SessionLimiter, WaitClock } from './ports.js';
import { parseProxyUrl } from './smtp/connect.js';
import { MxDispatcher } from './smtp/dispatcher.js';
import type { HostLearning } from './smtp/host-profile.js';

export interface ProbeIdentity {
  heloName: string;
  mailFrom: string;
}

export interface DispatcherParts {
  config: EngineConfig;
  tuning: EngineTuning;
  /** Null: live probes are not configured, and no route is used. */
  identity: ProbeIdentity | null;
  clock: Clock;
  limiter: SessionLimiter;
  hostAddresses: (host: string) => Promise<HostAddresses>;
  learning: HostLearning;
  /** Where the egress pool keeps its route pauses (shared by every worker on PostgreSQL); default: this process's memory. */
  routePauses?: RoutePauses;
  /** Where the politeness budgets are kept (shared by every worker on PostgreSQL); default: this process's memory. */
  politeness?: PolitenessBudget;
  /** The time the politeness gate waits on; default: `clock` and its timers. */
  politenessClock?: WaitClock;
}

/** The per-route politeness gate (egress/polite-gate.ts), when a budget is set; null when neither is (the default). */
export function politeGateOf(parts: Pick<DispatcherParts, 'tuning' | 'clock' | 'politeness' | 'politenessClock'>): PoliteGate | null {
  const { tuning } = parts;
  if (tuning.egressSessionsPerMinutePerHost <= 0 && tuning.egressRcptsPerMinutePerHost <= 0) return null;
  return new PoliteGate({
    budget: parts.politeness ?? createMemoryPolitenessBudget(),
    sessionsPerMinute: tuning.egressSessionsPerMinutePerHost,
    rcptsPerMinute: tuning.egressRcptsPerMinutePerHost,
    boundMs: tuning.hostThrottleBoundMs,
    clock: parts.politenessClock ?? systemWaitClock(parts.clock),
  });
}

export function createProbeDispatcher(parts: DispatcherParts, gate: PoliteGate | null = null): ProbeDispatcher {
  const { config, tuning, identity, clock } = parts;
  const mxDispatcherFor = (limiter: SessionLimiter, heloName: string, proxy: string | null, source: string | null): MxDispatcher =>
    new MxDispatcher(
      {
        session: {
          heloName,
          mailFrom: identity?.mailFrom ?? '',
          port: config.smtpPort,
          stepTimeoutMs: config.smtpTimeoutMs,
          sessionMaxMs: Math.max(tuning.sessionMaxMs, config.smtpTimeoutMs * 8),
          proxy: proxy ? parseProxyUrl(proxy) : null,
          localAddress: source,
          limits: tuning.replyLimits,
          now: () => clock.now().getTime(),
          slowReplyMs: tuning.slowReplyMs,
        },
        maxSessions: config.maxSessionsPerMx,
        maxRcptsPerTransaction: tuning.maxRcptsPerTransaction,
        maxTransactionsPerSession: tuning.maxTransactionsPerSession,
        sessionIdleMs: tuning.sessionIdleMs,
        maxAttempts: tuning.maxAttempts,
        maxRequeues: tuning.maxRequeues,
        errorBudget: tuning.sessionErrorBudget,
        backoffMs: tuning.backoffMs,
        maxBackoffMs: tuning.maxBackoffMs,
        hostThrottleBoundMs: tuning.hostThrottleBoundMs,
        allowPrivateMx: config.allowPrivateMx,
        hostDownMs: tuning.hostDownMs,
      },
      limiter,
      parts.hostAddresses,
      parts.learning,
    );
  // Each route spends its own politeness budget per MX host (egress/politeness.ts).
  const dispatcherFor = (route: string, heloName: string, proxy: string | null, source: string | null): ProbeDispatcher =>
    gate
      ? new PoliteDispatcher(route, mxDispatcherFor(politeLimiter(parts.limiter, gate, route), heloName, proxy, source), gate)
      : mxDispatcherFor(parts.limiter, heloName, proxy, source);
  const routes = identity ? (config.egress ?? []) : [];
  return routes.length > 1
    ? new RoutedDispatcher(
        routes.map((route) => ({ route, dispatcher: dispatcherFor(route.name, route.heloName, route.proxy, route.source) })),
        new RouteHealth(routes, { now: () => clock.now().getTime(), firstPauseMs: tuning.egressFirstPauseMs, maxPauseMs: tuning.egressMaxPauseMs, ...(parts.routePauses ? { pauses: parts.routePauses } : {}) }),
      )
    : dispatcherFor(routes[0]?.name ?? 'direct', identity?.heloName ?? '', config.smtpProxy, config.smtpSourceAddress ?? null);
}

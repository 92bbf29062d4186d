/**
 * The dispatcher every probe goes through: one MX dispatcher per egress route (its HELO name,
 * proxy and source address); with several routes the pool (egress/routed-dispatcher.ts) picks
 * one per recipient by provider health.
 */
import type { HostAddresses } from './dns/mail-hosts.js';
import type { EngineConfig, EngineTuning } from './engine-config.js';
import { RouteHealth } from './egress/route-health.js';
import { RoutedDispatcher, type ProbeDispatcher } from './egress/routed-dispatcher.js';
import type { Clock, RoutePauses, SessionLimiter } from './ports.js';
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
}

export function createProbeDispatcher(parts: DispatcherParts): ProbeDispatcher {
  const { config, tuning, identity, clock } = parts;
  const dispatcherFor = (heloName: string, proxy: string | null, source: string | null): MxDispatcher =>
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
      parts.limiter,
      parts.hostAddresses,
      parts.learning,
    );
  const routes = identity ? (config.egress ?? []) : [];
  return routes.length > 1
    ? new RoutedDispatcher(
        routes.map((route) => ({ route, dispatcher: dispatcherFor(route.heloName, route.proxy, route.source) })),
        new RouteHealth(routes, { now: () => clock.now().getTime(), firstPauseMs: tuning.egressFirstPauseMs, maxPauseMs: tuning.egressMaxPauseMs, ...(parts.routePauses ? { pauses: parts.routePauses } : {}) }),
      )
    : dispatcherFor(identity?.heloName ?? '', config.smtpProxy, config.smtpSourceAddress ?? null);
}

/**
 * The engine's parts, wired once by createEngine (verify.ts): the outside world through its
 * ports (DNS, clock, session limiter, facts cache, operator lists), the DNS facts it caches, what
 * MX hosts taught (host-profile.ts), and the dispatcher that probes them (probe-dispatcher.ts).
 * Each step of a check (verify.ts) reads what it needs from here.
 */
import { createDnsClient, type DnsClient } from './dns/resolver.js';
import { lookupHostAddresses, lookupMailHosts, type HostAddresses, type MailHosts } from './dns/mail-hosts.js';
import { providerFamily } from './domain/provider-family.js';
import { resolveTuning, type EngineConfig, type EngineTuning } from './engine-config.js';
import { cachedFact, createMemoryFactsCache, SingleFlight } from './facts-cache.js';
import { HostBudget } from './host-budget.js';
import { createMemorySessionLimiter } from './limiter.js';
import { systemClock, type Clock, type FactsCache, type OperatorLists, type PolitenessBudget, type RoutePauses, type SessionLimiter, type WaitClock } from './ports.js';
import { createProbeDispatcher, politeGateOf, type ProbeIdentity } from './probe-dispatcher.js';
import type { PoliteGate } from './egress/polite-gate.js';
import type { ProbeDispatcher } from './egress/routed-dispatcher.js';
import { HostLearning } from './smtp/host-profile.js';
import { EvidenceBook } from './evidence/evidence-book.js';
import { stamped } from './evidence/stamped-fact.js';
import type { ProviderFamily } from './types.js';

export interface EngineDeps {
  clock?: Clock;
  limiter?: SessionLimiter;
  cache?: FactsCache;
  /** DNS override; default: node:dns/promises Resolver on config.dnsServers. */
  resolver?: DnsClient;
  /** Operator-wide lists; per-call lists come in VerifyOptions. */
  lists?: OperatorLists;
  /** Where the egress pool keeps its route pauses (shared by every worker on PostgreSQL); default: this process's memory. */
  routePauses?: RoutePauses;
  /** Where the per-route politeness budgets are kept (shared by every worker on PostgreSQL); default: this process's memory. */
  politeness?: PolitenessBudget;
  /** The time the politeness gate waits on; default: `clock` and its timers (tests move their own). */
  politenessClock?: WaitClock;
}

export interface EngineParts {
  /** Where checks that explain themselves (VerifyOptions.explain) open their recorders (evidence/evidence-book.ts). */
  readonly book: EvidenceBook;
  readonly config: EngineConfig;
  readonly tuning: EngineTuning;
  readonly clock: Clock;
  readonly cache: FactsCache;
  /** Concurrent askers of one fact (a domain's MX set, its catch-all status) share one lookup. */
  readonly flights: SingleFlight;
  /** Single checks of one MX host in the engine at once (host-budget.ts). */
  readonly hostBudget: HostBudget;
  /** The probe's HELO name and MAIL FROM; null: live probes are not configured. */
  readonly identity: ProbeIdentity | null;
  /** The operator-wide lists, none or one (per-call lists come in VerifyOptions). */
  readonly operatorLists: readonly OperatorLists[];
  readonly dispatcher: ProbeDispatcher;
  /** Per-route politeness (egress/polite-gate.ts); null when no budget is set. */
  readonly politeGate: PoliteGate | null;
  /** close() was called: checks not under way end aborted. */
  closed: boolean;
  /** A domain's MX set, cached in the FactsCache (a failure for less long). */
  mailHosts(domain: string): Promise<MailHosts>;
  /** The provider family of an MX set, computed once per set (the object is shared by every address of the domain). */
  familyOf(hosts: Extract<MailHosts, { kind: 'hosts' }>): ProviderFamily | null;
}

export function wireEngine(config: EngineConfig, deps: EngineDeps): EngineParts {
  const clock = deps.clock ?? systemClock;
  const tuning = resolveTuning(config);
  const dns = deps.resolver ?? createDnsClient({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  const cache = deps.cache ?? createMemoryFactsCache(clock);
  const limiter = deps.limiter ?? createMemorySessionLimiter(config.maxSessionsPerMx);
  const flights = new SingleFlight();
  const identity = config.heloName && config.mailFrom ? { heloName: config.heloName, mailFrom: config.mailFrom } : null;

  const hostAddresses = (host: string): Promise<HostAddresses> =>
    cachedFact(cache, flights, `host:${host}`, (v) => (v.ok || v.failure === 'unresolvable' ? tuning.dnsTtlMs : tuning.dnsFailureTtlMs), () =>
      stamped(() => clock.now().getTime(), () => lookupHostAddresses(dns, host)),
    );

  const mailHosts = (domain: string): Promise<MailHosts> =>
    cachedFact(cache, flights, `mx:${domain}`, (v) => (v.kind === 'dns_failure' ? tuning.dnsFailureTtlMs : tuning.dnsTtlMs), () =>
      stamped(() => clock.now().getTime(), () => lookupMailHosts(dns, domain, { maxHosts: tuning.maxMxHosts, maxCnameDepth: tuning.maxCnameDepth })),
    );

  // What each MX host's defences taught, kept in the FactsCache for the next batch (host-profile.ts).
  const learning = new HostLearning(
    cache,
    {
      errorBudget: tuning.sessionErrorBudget,
      transactionErrors: tuning.transactionErrorBudget,
      sessionRcpts: tuning.sessionRcptBudget,
      sessions: config.maxSessionsPerMx,
      rcptLimit: tuning.maxRcptsPerTransaction,
      transactions: tuning.maxTransactionsPerSession,
    },
    tuning.hostProfileTtlMs,
  );

  const families = new WeakMap<object, ProviderFamily | null>();
  const familyOf = (hosts: Extract<MailHosts, { kind: 'hosts' }>): ProviderFamily | null => {
    let family = families.get(hosts);
    if (family === undefined) {
      family = providerFamily(hosts.hosts.map((h) => h.name));
      families.set(hosts, family);
    }
    return family;
  };

  const optional = {
    ...(deps.routePauses ? { routePauses: deps.routePauses } : {}),
    ...(deps.politeness ? { politeness: deps.politeness } : {}),
    ...(deps.politenessClock ? { politenessClock: deps.politenessClock } : {}),
  };
  const politeGate = politeGateOf({ tuning, clock, ...optional });

  return {
    config,
    tuning,
    clock,
    cache,
    flights,
    hostBudget: new HostBudget(tuning.maxChecksPerMxHost),
    identity,
    operatorLists: deps.lists ? [deps.lists] : [],
    dispatcher: createProbeDispatcher({ config, tuning, identity, clock, limiter, hostAddresses, learning, ...optional }, politeGate),
    politeGate,
    closed: false,
    book: new EvidenceBook(() => clock.now().getTime()),
    mailHosts,
    familyOf,
  };
}

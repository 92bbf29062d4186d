/**
 * The verification engine: syntax → lists → domain → DNS → SMTP probe → classify →
 * pre-send envelope. `createEngine(config, deps)` wires the outside world (DNS, clock,
 * session limiter, facts cache, operator lists) through ports; nothing here knows HTTP,
 * storage or queues.
 *
 * Live probes need PRESEND_HELO_NAME and PRESEND_MAIL_FROM. Without them the engine still
 * answers everything DNS and lists can decide, and returns UNKNOWN with reason
 * `probe_not_configured` where a probe would be needed — it never invents an identity.
 */
import { randomBytes } from 'node:crypto';
import { classifyRcptReply } from './classify-reply.js';
import { classify, type AddressTraits, type Finding, type ListHit } from './classify.js';
import { createDnsClient, type DnsClient } from './dns/resolver.js';
import { lookupHostAddresses, lookupMailHosts, type HostAddresses, type MailHosts, type MxHost } from './dns/mail-hosts.js';
import { isDisposableDomain } from './domain/lists.js';
import { domainListHit, traitsOf } from './address-facts.js';
import { providerFamily, acceptsEveryRcpt } from './domain/provider-family.js';
import { resolveTuning, type EngineConfig } from './engine-config.js';
import { runBatch, type BatchEngine } from './batch.js';
import { buildResult } from './envelope.js';
import { syntaxRejection } from './syntax-rejection.js';
import { cachedFact, createMemoryFactsCache, SingleFlight } from './facts-cache.js';
import { createMemorySessionLimiter } from './limiter.js';
import { HostBudget } from './host-budget.js';
import { systemClock, type Clock, type Engine, type FactsCache, type OperatorLists, type SessionLimiter, type VerifyOptions } from './ports.js';
import { parseProxyUrl } from './smtp/connect.js';
import { MxDispatcher, type ProbeOutcome } from './smtp/dispatcher.js';
import { HostLearning } from './smtp/host-profile.js';
import { RouteHealth } from './egress/route-health.js';
import { RoutedDispatcher, type ProbeDispatcher } from './egress/routed-dispatcher.js';
import { parseAddress, type ParsedAddress } from './syntax/address.js';
import type { EngineResult, ProviderFamily } from './types.js';
import { EvidenceBook } from './evidence/evidence-book.js';
import type { CheckEvidence } from './evidence/recorder.js';
import { stamped } from './evidence/stamped-fact.js';

export interface EngineDeps {
  clock?: Clock;
  limiter?: SessionLimiter;
  cache?: FactsCache;
  /** DNS override; default: node:dns/promises Resolver on config.dnsServers. */
  resolver?: DnsClient;
  /** Operator-wide lists; per-call lists come in VerifyOptions. */
  lists?: OperatorLists;
}

type ListQuestion = 'isHardBounced' | 'isSpamtrap' | 'isBlocklistedDomain';

async function anyListSays(lists: readonly OperatorLists[], question: ListQuestion, subject: string): Promise<boolean> {
  for (const list of lists) if (await list[question]?.(subject)) return true;
  return false;
}

/** A local part no one has: its acceptance means the domain accepts everything. */
function randomLocalPart(): string {
  return `presend-${randomBytes(10).toString('hex')}`;
}

export function createEngine(config: EngineConfig, deps: EngineDeps = {}): Engine {
  const clock = deps.clock ?? systemClock;
  const tuning = resolveTuning(config);
  const dns = deps.resolver ?? createDnsClient({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  const cache = deps.cache ?? createMemoryFactsCache(clock);
  const limiter = deps.limiter ?? createMemorySessionLimiter(config.maxSessionsPerMx);
  const flights = new SingleFlight();
  const hostBudget = new HostBudget(tuning.maxChecksPerMxHost);
  const identity = config.heloName && config.mailFrom ? { heloName: config.heloName, mailFrom: config.mailFrom } : null;
  let closed = false;
  const book = new EvidenceBook(() => clock.now().getTime());

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
  // One dispatcher per egress route (its HELO name, proxy and source address); with several
  // routes the pool (egress/routed-dispatcher.ts) picks one per recipient by provider health.
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
      limiter,
      hostAddresses,
      learning,
    );
  const routes = identity ? (config.egress ?? []) : [];
  const dispatcher: ProbeDispatcher =
    routes.length > 1
      ? new RoutedDispatcher(
          routes.map((route) => ({ route, dispatcher: dispatcherFor(route.heloName, route.proxy, route.source) })),
          new RouteHealth(routes, { now: () => clock.now().getTime(), firstPauseMs: tuning.egressFirstPauseMs, maxPauseMs: tuning.egressMaxPauseMs }),
        )
      : dispatcherFor(identity?.heloName ?? '', config.smtpProxy, config.smtpSourceAddress ?? null);

  /**
   * Catch-all status, probed once per domain (cached; concurrent askers share the probe).
   * "Could not tell" (greylisted or tarpitted probe) is kept a minute only, so a domain that
   * stalls the probe does not stall every check, yet the answer is soon asked again.
   */
  const catchAllKey = (domain: string): string => `catchall:${domain}`;
  async function probeCatchAll(domain: string, hosts: readonly MxHost[]): Promise<boolean | null> {
    const recipient = `${randomLocalPart()}@${domain}`;
    const outcome = await dispatcher.probe({ recipient, needsUtf8: false, urgent: true }, hosts);
    const judged = outcome.kind === 'reply' ? classifyRcptReply(outcome.reply).class : null;
    const value = judged === 'accepted' ? true : judged === 'no_mailbox' || judged === 'disabled' ? false : null;
    book.catchAllProbed(domain, recipient, outcome, value);
    return value;
  }
  /** Starts the probe now (its RCPT is queued before this returns), unless one is under way. */
  const startCatchAll = (domain: string, hosts: readonly MxHost[]): Promise<boolean | null> =>
    flights.run(catchAllKey(domain), async () => {
      const value = await probeCatchAll(domain, hosts);
      await cache.set(catchAllKey(domain), value, value === null ? Math.min(60_000, tuning.catchAllTtlMs) : tuning.catchAllTtlMs);
      return value;
    });
  const cachedCatchAll = (domain: string): Promise<boolean | null | undefined> => cache.get<boolean | null>(catchAllKey(domain));
  const catchAllOf = async (domain: string, hosts: readonly MxHost[]): Promise<boolean | null> => {
    const hit = await cachedCatchAll(domain);
    return hit !== undefined ? hit : startCatchAll(domain, hosts);
  };

  // Computed once per MX set (the object is shared by every address of the domain).
  const families = new WeakMap<object, ProviderFamily | null>();
  const familyOf = (hosts: Extract<MailHosts, { kind: 'hosts' }>): ProviderFamily | null => {
    let family = families.get(hosts);
    if (family === undefined) {
      family = providerFamily(hosts.hosts.map((h) => h.name));
      families.set(hosts, family);
    }
    return family;
  };

  /**
   * Per-batch memo: every address of a domain awaits the same DNS answer and catch-all probe
   * without going through the FactsCache again (10,000 addresses are 100 lookups, not 10,000).
   */
  interface BatchMemo {
    hosts: Map<string, Promise<MailHosts>>;
    catchAll: Map<string, Promise<boolean | null>>;
  }
  const memoized = <T>(map: Map<string, Promise<T>> | undefined, key: string, work: () => Promise<T>): Promise<T> => {
    if (!map) return work();
    let promise = map.get(key);
    if (!promise) {
      promise = work();
      map.set(key, promise);
    }
    return promise;
  };

  async function probe(address: ParsedAddress, hosts: readonly MxHost[], traits: AddressTraits, memo: BatchMemo | undefined, signal?: AbortSignal, evidence?: CheckEvidence) {
    // Started before the address's own probe so both ride the same pipelined transaction.
    const catchAll = acceptsEveryRcpt(traits.providerFamily)
      ? Promise.resolve(null)
      : (memo?.catchAll.get(address.domain) ?? memoized(memo?.catchAll, address.domain, () => catchAllOf(address.domain, hosts)));
    const target = { recipient: address.normalized, needsUtf8: !address.asciiLocalPart, ...(evidence ? { evidence } : {}) };
    let outcome: ProbeOutcome = await dispatcher.probe(target, hosts, signal);
    // A host may tarpit the probe's random recipient while it answers real ones (RFC 5321
    // §4.5.3.2 lets RCPT take 5 minutes): the address, pipelined behind the probe, timed out
    // with it. Once the probe has failed, the address is asked once more, alone.
    if (outcome.kind === 'failure' && outcome.failure.kind === 'timeout' && outcome.failure.step === 'rcpt' && (await catchAll) === null) {
      evidence?.note('the address timed out behind the catch-all probe: asked again, alone');
      const alone = await dispatcher.probe(target, hosts, signal);
      outcome = { ...alone, attempts: outcome.attempts + alone.attempts };
    }
    const accepted = outcome.kind === 'reply' && classifyRcptReply(outcome.reply).class === 'accepted';
    book.concluded(evidence, address.domain, outcome, accepted ? await catchAll : null);
    return { finding: { kind: 'probe', outcome, catchAll: accepted ? await catchAll : null } satisfies Finding, outcome };
  }

  const engineLists: OperatorLists[] = deps.lists ? [deps.lists] : [];
  const listsFor = (options: VerifyOptions): OperatorLists[] =>
    options.lists ? [...engineLists, options.lists] : engineLists;

  function resultOf(finding: Finding, traits: AddressTraits, input: string, email: string, attempts = 0, mxHost: string | null = null): EngineResult {
    const context = { now: clock.now(), recheckDelayMs: config.recheckDelayMs };
    return buildResult(classify(finding, traits), traits, context, { input, email, attempts, mxHost });
  }

  /** Operator lists: hard bounces, traps, blocked domains (docs/design.md §5). */
  async function operatorListHit(lists: readonly OperatorLists[], address: ParsedAddress): Promise<ListHit | null> {
    if (await anyListSays(lists, 'isHardBounced', address.normalized)) return 'hard_bounced';
    if (await anyListSays(lists, 'isSpamtrap', address.normalized)) return 'spamtrap';
    if (await anyListSays(lists, 'isBlocklistedDomain', address.domain)) return 'blacklisted_domain';
    return null;
  }

  /** A check, with its evidence beside the result when asked (VerifyOptions.explain). */
  async function verifyOne(input: string, options: VerifyOptions = {}, memo?: BatchMemo, parsed = parseAddress(input)): Promise<EngineResult> {
    if (!options.explain) return decide(input, options, memo, parsed);
    const evidence = book.open(parsed.ok ? parsed.address.normalized : input.trim());
    const result = await decide(input, options, memo, parsed, evidence);
    return { ...result, evidence: evidence.finish(result) };
  }

  async function decide(input: string, options: VerifyOptions, memo: BatchMemo | undefined, parsed: ReturnType<typeof parseAddress>, evidence?: CheckEvidence): Promise<EngineResult> {
    if (!parsed.ok) return syntaxRejection(input, parsed.error, clock.now());
    const address = parsed.address;
    const email = address.normalized;
    const traits = traitsOf(address);
    const lists = listsFor(options);
    const hit = (lists.length > 0 ? await operatorListHit(lists, address) : null) ?? domainListHit(address);
    if (hit) return resultOf({ kind: 'list', hit }, traits, input, email);
    if (closed || options.signal?.aborted) return resultOf({ kind: 'aborted' }, traits, input, email);

    const hosts = await (memo?.hosts.get(address.domain) ?? memoized(memo?.hosts, address.domain, () => mailHosts(address.domain)));
    evidence?.mailHosts(address.domain, hosts);
    if (hosts.kind !== 'hosts') {
      return resultOf({ kind: 'dns', result: hosts.kind === 'dns_failure' ? hosts.failure : hosts.kind }, traits, input, email);
    }
    traits.providerFamily = familyOf(hosts);
    for (const host of lists.length > 0 ? hosts.hosts : []) {
      if (await anyListSays(lists, 'isBlocklistedDomain', host.name)) return resultOf({ kind: 'list', hit: 'blacklisted_domain' }, traits, input, email);
    }
    if (!identity) return resultOf({ kind: 'not_configured' }, traits, input, email);
    // A single check (no batch memo) spends its preferred MX host's budget while it probes.
    const release = memo ? () => undefined : hostBudget.take(hosts.hosts[0]?.name ?? '');
    if (!release) return resultOf({ kind: 'aborted' }, traits, input, email);
    try {
      const { finding, outcome } = await probe(address, hosts.hosts, traits, memo, options.signal, evidence);
      return resultOf(finding, traits, input, email, outcome.attempts, outcome.host);
    } finally {
      release();
    }
  }

  const batchEngine: BatchEngine = {
    mailHosts,
    warm: (hosts, expected) => dispatcher.warm(hosts, expected),
    probeEach: (hosts, onOutcome) => dispatcher.probeEach(hosts, onOutcome),
    probe: (target, hosts) => dispatcher.probe(target, hosts),
    cachedCatchAll,
    startCatchAll,
    familyOf,
    resultOf,
    isClosed: () => closed,
    book,
  };

  return {
    verify: (address, options) => verifyOne(address, options),
    egressStats: () => (dispatcher instanceof RoutedDispatcher ? dispatcher.stats() : null),
    async verifyMany(addresses, onResult, options) {
      // The fast path covers the common batch, aborts included (the batch worker always passes
      // a signal); lists and a missing identity go the general way below, one address at a
      // time (same results).
      if (identity && engineLists.length === 0 && !options?.lists) return runBatch(batchEngine, addresses, onResult, options?.signal, options?.explain);
      // A domain's DNS answer and catch-all probe are shared through the batch memo, and the
      // MX host queues batch the recipients into shared, pipelined sessions.
      const memo: BatchMemo = { hosts: new Map(), catchAll: new Map() };
      const parsed = addresses.map((address) => parseAddress(address));
      const perDomain = new Map<string, number>();
      for (const p of parsed) {
        if (p.ok && !isDisposableDomain(p.address.domain)) perDomain.set(p.address.domain, (perDomain.get(p.address.domain) ?? 0) + 1);
      }
      // DNS for every domain goes out first; as soon as a domain's MX set is known its
      // sessions start opening (banner, EHLO). Not when a blocklist could still rule the MX
      // host out: no connection before that check.
      const mayWarm = identity !== null && !deps.lists?.isBlocklistedDomain && !options?.lists?.isBlocklistedDomain;
      for (const [domain, count] of perDomain) {
        // The addresses of a domain wait for this promise; by the time it resolves the MX
        // host is resolved and its sessions are connecting, so their per-address work runs
        // while the banners are on their way.
        void memoized(memo.hosts, domain, async () => {
          const hosts = await mailHosts(domain);
          if (mayWarm && hosts.kind === 'hosts') await dispatcher.warm(hosts.hosts, count + 1);
          return hosts;
        });
      }
      // Network first, CPU after: an address's own work starts once its domain's MX answer is
      // in (and its sessions are connecting), so the work of one domain overlaps the
      // round trips of the others instead of holding their DNS answers up.
      const settled = await Promise.allSettled(
        addresses.map((address, i) => {
          const p = parsed[i];
          const ready = p?.ok ? memo.hosts.get(p.address.domain) : undefined;
          const run = (): Promise<void> => verifyOne(address, options, memo, p).then(onResult);
          return ready ? ready.then(run, run) : run();
        }),
      );
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
    },
    async close() {
      closed = true;
      await dispatcher.close();
    },
  };
}

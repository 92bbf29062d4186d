/**
 * The verification engine: syntax → lists → domain → DNS → SMTP probe → classify →
 * pre-send envelope. `createEngine(config, deps)` wires the outside world (DNS, clock,
 * session limiter, facts cache, operator lists) through ports (engine-parts.ts); nothing here
 * knows HTTP, storage or queues.
 *
 * Live probes need PRESEND_HELO_NAME and PRESEND_MAIL_FROM. Without them the engine still
 * answers everything DNS and lists can decide, and returns UNKNOWN with reason
 * `probe_not_configured` where a probe would be needed — it never invents an identity.
 *
 * A check reads top to bottom in verifyOne: its steps are named functions, each in the file of
 * its step (syntax/, operator-lists.ts and address-facts.ts, dns/, probe-step.ts, classify-finding.ts,
 * envelope.ts). A batch goes the fast path (batch.ts) or, with lists, verifyEach.
 */
import { classify, type AddressTraits, type Finding } from './classify-finding.js';
import { domainListHit, traitsOf } from './address-facts.js';
import { isDisposableDomain } from './domain/lists.js';
import type { MailHosts } from './dns/mail-hosts.js';
import type { EngineConfig } from './engine-config.js';
import { wireEngine, type EngineDeps, type EngineParts } from './engine-parts.js';
import { runBatch, type BatchEngine } from './batch.js';
import { buildResult } from './envelope.js';
import { syntaxRejection } from './syntax-rejection.js';
import { cachedCatchAll, startCatchAll } from './catch-all.js';
import { anyListSays, listsFor, operatorListHit } from './operator-lists.js';
import { memoized, probeAddress, type BatchMemo } from './probe-step.js';
import type { Engine, VerifyOptions } from './ports.js';
import { RoutedDispatcher } from './egress/routed-dispatcher.js';
import { parseAddress, type AddressParse } from './syntax/address.js';
import type { EngineResult } from './types.js';
import type { CheckEvidence } from './evidence/recorder.js';
import { ABORTED, untilAborted } from './until-aborted.js';

export type { EngineDeps } from './engine-parts.js';

export function createEngine(config: EngineConfig, deps: EngineDeps = {}): Engine {
  const parts = wireEngine(config, deps);
  const batchEngine = batchEngineOf(parts);
  return {
    verify: (address, options) => verifyOne(parts, address, options),
    egressStats: () => (parts.dispatcher instanceof RoutedDispatcher ? parts.dispatcher.stats() : null),
    politenessStats: () => parts.politeGate?.stats() ?? null,
    async verifyMany(addresses, onResult, options) {
      // The fast path covers the common batch, aborts included (the batch worker always passes
      // a signal); lists and a missing identity go the general way, one address at a time
      // (same results).
      if (parts.identity && parts.operatorLists.length === 0 && !options?.lists) return runBatch(batchEngine, addresses, onResult, options?.signal, options?.explain);
      return verifyEach(parts, addresses, onResult, options);
    },
    async close() {
      parts.closed = true;
      await parts.dispatcher.close();
    },
  };
}

/** The step every path ends with: the finding classified (classify-finding.ts) and put in its envelope (envelope.ts). */
function resultOf(parts: EngineParts, finding: Finding, traits: AddressTraits, input: string, email: string, attempts = 0, mxHost: string | null = null): EngineResult {
  const context = { now: parts.clock.now(), recheckDelayMs: parts.config.recheckDelayMs };
  return buildResult(classify(finding, traits), traits, context, { input, email, attempts, mxHost });
}

/** A check, with its evidence beside the result when asked (VerifyOptions.explain, docs/evidence.md). */
async function verifyOne(parts: EngineParts, input: string, options: VerifyOptions = {}, memo?: BatchMemo, parsed: AddressParse = parseAddress(input)): Promise<EngineResult> {
  if (!options.explain) return decide(parts, input, options, memo, parsed);
  const evidence = parts.book.open(parsed.ok ? parsed.address.normalized : input.trim());
  const result = await decide(parts, input, options, memo, parsed, evidence);
  return { ...result, evidence: evidence.finish(result) };
}

/** One address: syntax → lists → DNS facts → probe → classify → envelope; each step may decide it. */
async function decide(parts: EngineParts, input: string, options: VerifyOptions, memo: BatchMemo | undefined, parsed: AddressParse, evidence?: CheckEvidence): Promise<EngineResult> {
  // Syntax.
  if (!parsed.ok) return syntaxRejection(input, parsed.error, parts.clock.now());
  const address = parsed.address;
  const email = address.normalized;
  const traits = traitsOf(address);
  const decided = (finding: Finding, attempts?: number, mxHost?: string | null): EngineResult => resultOf(parts, finding, traits, input, email, attempts, mxHost);
  // Lists: the operator's, then the maintained ones (disposable domains…).
  const lists = listsFor(parts.operatorLists, options);
  const hit = (lists.length > 0 ? await operatorListHit(lists, address) : null) ?? domainListHit(address);
  if (hit) return decided({ kind: 'list', hit });
  if (parts.closed || options.signal?.aborted) return decided({ kind: 'aborted' });
  // DNS facts: the MX set, its provider family, and the lists again for its hosts.
  const lookedUp = await untilAborted(memo?.hosts.get(address.domain) ?? memoized(memo?.hosts, address.domain, () => parts.mailHosts(address.domain)), options.signal);
  if (lookedUp === ABORTED) return decided({ kind: 'aborted' });
  const hosts = lookedUp;
  evidence?.mailHosts(address.domain, hosts);
  if (hosts.kind !== 'hosts') return decided({ kind: 'dns', result: hosts.kind === 'dns_failure' ? hosts.failure : hosts.kind });
  traits.providerFamily = parts.familyOf(hosts);
  for (const host of lists.length > 0 ? hosts.hosts : []) {
    if (await anyListSays(lists, 'isBlocklistedDomain', host.name)) return decided({ kind: 'list', hit: 'blacklisted_domain' });
  }
  // The probe.
  if (!parts.identity) return decided({ kind: 'not_configured' });
  // A single check (no batch memo) spends its preferred MX host's budget while it probes.
  const release = memo ? () => undefined : parts.hostBudget.take(hosts.hosts[0]?.name ?? '');
  if (!release) return decided({ kind: 'aborted' });
  try {
    const { finding, outcome } = await probeAddress(parts, address, hosts.hosts, traits, memo, options.signal, evidence);
    return decided(finding, outcome.attempts, outcome.host);
  } finally {
    release();
  }
}

/**
 * The general batch path (lists, or no probe identity): every address through verifyOne. A
 * domain's DNS answer and catch-all probe are shared through the batch memo, and the MX host
 * queues batch the recipients into shared, pipelined sessions.
 */
async function verifyEach(parts: EngineParts, addresses: readonly string[], onResult: (result: EngineResult) => void | Promise<void>, options?: VerifyOptions): Promise<void> {
  const memo: BatchMemo = { hosts: new Map(), catchAll: new Map() };
  const parsed = addresses.map((address) => parseAddress(address));
  const perDomain = new Map<string, number>();
  for (const p of parsed) {
    if (p.ok && !isDisposableDomain(p.address.domain)) perDomain.set(p.address.domain, (perDomain.get(p.address.domain) ?? 0) + 1);
  }
  // DNS for every domain goes out first; as soon as a domain's MX set is known its
  // sessions start opening (banner, EHLO). Not when a blocklist could still rule the MX
  // host out: no connection before that check.
  const mayWarm = parts.identity !== null && !parts.operatorLists[0]?.isBlocklistedDomain && !options?.lists?.isBlocklistedDomain;
  for (const [domain, count] of perDomain) {
    // The addresses of a domain wait for this promise; by the time it resolves the MX
    // host is resolved and its sessions are connecting, so their per-address work runs
    // while the banners are on their way.
    void memoized(memo.hosts, domain, async (): Promise<MailHosts> => {
      const hosts = await parts.mailHosts(domain);
      if (mayWarm && hosts.kind === 'hosts') await parts.dispatcher.warm(hosts.hosts, count + 1);
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
      const run = (): Promise<void> => verifyOne(parts, address, options, memo, p).then(onResult);
      return ready ? ready.then(run, run) : run();
    }),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

/** What the batch fast path (batch.ts) uses of the engine. */
function batchEngineOf(parts: EngineParts): BatchEngine {
  const { dispatcher } = parts;
  return {
    mailHosts: parts.mailHosts,
    warm: (hosts, expected) => dispatcher.warm(hosts, expected),
    probeEach: (hosts, onOutcome) => dispatcher.probeEach(hosts, onOutcome),
    probe: (target, hosts) => dispatcher.probe(target, hosts),
    cachedCatchAll: (domain) => cachedCatchAll(parts, domain),
    startCatchAll: (domain, hosts) => startCatchAll(parts, domain, hosts),
    familyOf: parts.familyOf,
    resultOf: (...args) => resultOf(parts, ...args),
    isClosed: () => parts.closed,
    book: parts.book,
  };
}

/**
 * verifyMany's fast path. A batch of thousands is worked domain by domain, not address by
 * address: one DNS answer and one catch-all probe per domain, sessions opened as soon as the
 * MX host is known (so banners arrive while the engine does its own work), and recipients
 * handed to the MX host queues with callbacks rather than a promise chain each — the
 * per-address cost stays a few microseconds of parsing and classification.
 *
 * Used when no operator list is involved; otherwise verifyMany takes the general per-address
 * path (verify.ts), which gives the same results. An abort answers every address not yet
 * reported as aborted, at once, as the general path does; replies that come in later are
 * dropped (the sessions end with the engine, or serve the next batch).
 */
import { setImmediate } from 'node:timers/promises';
import { domainTraitsOf, NO_TRAITS, traitsOf, type DomainTraits } from './address-facts.js';
import { classifyRcptReply } from './replies/classify-by-table.js';
import type { AddressTraits, Finding } from './classify-finding.js';
import type { MailHosts, MxHost } from './dns/mail-hosts.js';
import { isDisposableDomain, looksLikeSpamtrap } from './domain/lists.js';
import { acceptsEveryRcpt } from './domain/provider-family.js';
import type { ProbeOutcome } from './smtp/dispatcher.js';
import type { ProbeTarget } from './smtp/host-queue.js';
import { parseAddress, type ParsedAddress } from './syntax/address.js';
import type { EngineResult, ProviderFamily } from './types.js';
import type { EvidenceBook } from './evidence/evidence-book.js';
import type { CheckEvidence } from './evidence/recorder.js';

type Hosts = Extract<MailHosts, { kind: 'hosts' }>;

/** What the batch path needs from the engine (verify.ts). */
export interface BatchEngine {
  mailHosts(domain: string): Promise<MailHosts>;
  warm(hosts: readonly MxHost[], expectedRecipients: number): Promise<void>;
  probeEach<T extends ProbeTarget>(hosts: readonly MxHost[], onOutcome: (outcome: ProbeOutcome, target: T) => void): (target: T) => void;
  probe(target: ProbeTarget, hosts: readonly MxHost[]): Promise<ProbeOutcome>;
  cachedCatchAll(domain: string): Promise<boolean | null | undefined>;
  startCatchAll(domain: string, hosts: readonly MxHost[]): Promise<boolean | null>;
  familyOf(hosts: Hosts): ProviderFamily | null;
  resultOf(finding: Finding, traits: AddressTraits, input: string, email: string, attempts?: number, mxHost?: string | null): EngineResult;
  isClosed(): boolean;
  /** Where checks that explain themselves open their recorders (evidence/evidence-book.ts). */
  book: EvidenceBook;
}

/**
 * One address of the batch, from parsing to its result. It is also what the MX host queue
 * carries (a ProbeTarget) and hands back with the outcome: one object per address in flight,
 * not a closure chain (a batch keeps thousands alive for a few hundred milliseconds).
 */
class Item implements ProbeTarget {
  readonly recipient: string;
  readonly needsUtf8: boolean;
  /** Set when its domain's work starts. */
  traits: AddressTraits = NO_TRAITS;
  /** Reported: anything later about it (a reply after an abort) is dropped. */
  reported = false;
  /** Its evidence, when the batch explains itself. */
  evidence?: CheckEvidence;

  constructor(
    readonly input: string,
    readonly address: ParsedAddress,
  ) {
    this.recipient = address.normalized;
    this.needsUtf8 = !address.asciiLocalPart;
  }
}

const UNKNOWN_CATCH_ALL: Promise<null> = Promise.resolve(null);

/** Addresses parsed between two turns of the event loop (about half a millisecond). */
const PARSE_SLICE = 500;

/** The address timed out at RCPT behind a catch-all probe that the host tarpitted. */
const stalledAtRcpt = (outcome: ProbeOutcome): boolean =>
  outcome.kind === 'failure' && outcome.failure.kind === 'timeout' && outcome.failure.step === 'rcpt';

export function runBatch(
  engine: BatchEngine,
  addresses: readonly string[],
  onResult: (result: EngineResult) => void | Promise<void>,
  signal?: AbortSignal,
  explain = false,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let outstanding = addresses.length;
    let failure: { error: unknown } | null = null;
    const settled = (): void => {
      if (--outstanding > 0) return;
      signal?.removeEventListener('abort', abortAll);
      if (failure) reject(failure.error);
      else resolve();
    };
    const failed = (error: unknown): void => {
      failure ??= { error };
      settled();
    };
    const emit = (result: EngineResult): void => {
      let returned: void | Promise<void>;
      try {
        returned = onResult(result);
      } catch (error) {
        failed(error);
        return;
      }
      if (returned && typeof returned.then === 'function') returned.then(settled, failed);
      else settled();
    };
    if (outstanding === 0) return resolve();

    const finish = (item: Item, traits: AddressTraits, finding: Finding, attempts = 0, host: string | null = null): void => {
      if (item.reported) return;
      item.reported = true;
      const result = engine.resultOf(finding, traits, item.input, item.address.normalized, attempts, host);
      emit(item.evidence ? { ...result, evidence: item.evidence.finish(result) } : result);
    };
    /** Every item parsed so far, for an abort to answer. */
    const items: Item[] = [];
    // What a domain says (free provider, typo suggestion) is looked up once per domain, not per
    // address: a typo search costs tens of microseconds, and a batch can hold 10,000 addresses
    // of one disposable domain.
    const domainTraits = new Map<string, DomainTraits>();
    const traitsAt = (domain: string): DomainTraits => {
      let traits = domainTraits.get(domain);
      if (!traits) {
        traits = domainTraitsOf(domain);
        domainTraits.set(domain, traits);
      }
      return traits;
    };
    /** Traits of an address that will not be probed (aborted, disposable, no DNS answer). */
    const unprobedTraits = (item: Item): AddressTraits => traitsOf(item.address, traitsAt(item.address.domain));
    function abortAll(): void {
      for (const item of items) finish(item, unprobedTraits(item), { kind: 'aborted' });
    }
    signal?.addEventListener('abort', abortAll, { once: true });
    const concludeProbe = (item: Item, outcome: ProbeOutcome, catchAll: boolean | null): void => {
      engine.book.concluded(item.evidence, item.address.domain, outcome, catchAll);
      finish(item, item.traits, { kind: 'probe', outcome, catchAll }, outcome.attempts, outcome.host);
    };

    // The batch is parsed in slices. A domain's work starts with its first address, and between
    // slices the event loop sends the DNS queries of the domains found so far, so sessions
    // start opening while the rest of a large batch is still being parsed.
    let parsed = (): void => undefined;
    const allParsed = new Promise<void>((done) => (parsed = done));

    async function runDomain(domain: string, items: Item[]): Promise<void> {
      if (isDisposableDomain(domain)) {
        await allParsed;
        for (const item of items) finish(item, unprobedTraits(item), { kind: 'list', hit: 'disposable_domain' });
        return;
      }
      const hosts = await engine.mailHosts(domain);
      // Sessions for the addresses parsed so far, and once all are, for the rest.
      if (hosts.kind === 'hosts') await engine.warm(hosts.hosts, items.length + 1);
      await allParsed;
      if (hosts.kind === 'hosts') await engine.warm(hosts.hosts, items.length + 1);
      // Other domains' DNS answers and connections first: this domain's sessions are a banner
      // and an EHLO away from their first transaction, time enough for the work below.
      await setImmediate();
      if (signal?.aborted) return; // its items were answered by the abort
      for (const item of items) item.evidence?.mailHosts(domain, hosts);
      if (engine.isClosed()) {
        for (const item of items) finish(item, unprobedTraits(item), { kind: 'aborted' });
        return;
      }
      if (hosts.kind !== 'hosts') {
        const result = hosts.kind === 'dns_failure' ? hosts.failure : hosts.kind;
        for (const item of items) finish(item, unprobedTraits(item), { kind: 'dns', result });
        return;
      }
      const family = engine.familyOf(hosts);
      const webmail = acceptsEveryRcpt(family);
      const known = webmail ? null : await engine.cachedCatchAll(domain);
      // Queued ahead of the addresses (urgent), so it rides their first transaction.
      const catchAll = webmail ? UNKNOWN_CATCH_ALL : known !== undefined ? Promise.resolve(known) : engine.startCatchAll(domain, hosts.hosts);
      // The answer once it is in: addresses accepted after that conclude without a promise each.
      let catchAllValue = known;
      const traits = traitsAt(domain);
      const probe = engine.probeEach<Item>(hosts.hosts, (outcome, item) => {
        if (outcome.kind === 'reply' && classifyRcptReply(outcome.reply).class === 'accepted') {
          if (catchAllValue !== undefined) concludeProbe(item, outcome, catchAllValue);
          else {
            catchAll.then((value) => {
              catchAllValue = value;
              concludeProbe(item, outcome, value);
            }, failed);
          }
        } else if (stalledAtRcpt(outcome)) {
          // Same rule as the single path: asked once more, alone, once the probe failed.
          catchAll
            .then(async (value) => {
              if (value !== null) return concludeProbe(item, outcome, null);
              item.evidence?.note('the address timed out behind the catch-all probe: asked again, alone');
              const alone = await engine.probe(item, hosts.hosts);
              const merged = { ...alone, attempts: outcome.attempts + alone.attempts };
              const accepted = merged.kind === 'reply' && classifyRcptReply(merged.reply).class === 'accepted';
              concludeProbe(item, merged, accepted ? await catchAll : null);
            })
            .catch(failed);
        } else concludeProbe(item, outcome, null);
      });
      for (const item of items) {
        item.traits = traitsOf(item.address, traits);
        // The domain is not disposable (checked above), so only the local part can be on a list.
        // Decided before DNS on the per-address path, so without a provider family there too.
        if (looksLikeSpamtrap(item.address.localPart)) {
          finish(item, item.traits, { kind: 'list', hit: 'spamtrap_pattern' });
          continue;
        }
        item.traits.providerFamily = family;
        probe(item);
      }
    }

    // A bug, not an address's behaviour: the batch rejects (outcomes are data, bugs are not).
    const bug = (error: unknown): void => {
      failure ??= { error };
      reject(error);
    };

    async function parseAll(): Promise<void> {
      const byDomain = new Map<string, Item[]>();
      let count = 0;
      for (const input of addresses) {
        if (++count % PARSE_SLICE === 0) await setImmediate();
        const parsedAddress = parseAddress(input);
        if (!parsedAddress.ok) {
          const result = engine.resultOf({ kind: 'syntax', error: parsedAddress.error }, NO_TRAITS, input, input.trim());
          emit(explain ? { ...result, evidence: engine.book.open(input.trim()).finish(result) } : result);
          continue;
        }
        const item = new Item(input, parsedAddress.address);
        if (explain) item.evidence = engine.book.open(item.recipient);
        items.push(item);
        if (signal?.aborted) {
          finish(item, unprobedTraits(item), { kind: 'aborted' });
          continue;
        }
        const domainItems = byDomain.get(item.address.domain);
        if (domainItems) domainItems.push(item);
        else {
          const first = [item];
          byDomain.set(item.address.domain, first);
          runDomain(item.address.domain, first).catch(bug);
        }
      }
      parsed();
    }
    parseAll().catch(bug);
  });
}

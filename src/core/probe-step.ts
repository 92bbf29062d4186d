/**
 * The probe step of a check: the address asked at its MX hosts, with the domain's catch-all
 * probe riding the same pipelined transaction (catch-all.ts). Within one batch, every address
 * of a domain shares its DNS answer and catch-all probe through the batch memo.
 */
import { classifyRcptReply } from './replies/classify-by-table.js';
import type { AddressTraits, Finding } from './classify-finding.js';
import type { MailHosts, MxHost } from './dns/mail-hosts.js';
import { acceptsEveryRcpt } from './domain/provider-family.js';
import { catchAllOf } from './catch-all.js';
import type { EngineParts } from './engine-parts.js';
import type { ProbeOutcome } from './smtp/dispatcher.js';
import type { ParsedAddress } from './syntax/address.js';
import type { CheckEvidence } from './evidence/recorder.js';

/**
 * Per-batch memo: every address of a domain awaits the same DNS answer and catch-all probe
 * without going through the FactsCache again (10,000 addresses are 100 lookups, not 10,000).
 */
export interface BatchMemo {
  hosts: Map<string, Promise<MailHosts>>;
  catchAll: Map<string, Promise<boolean | null>>;
}

export const memoized = <T>(map: Map<string, Promise<T>> | undefined, key: string, work: () => Promise<T>): Promise<T> => {
  if (!map) return work();
  let promise = map.get(key);
  if (!promise) {
    promise = work();
    map.set(key, promise);
  }
  return promise;
};

export async function probeAddress(
  parts: EngineParts,
  address: ParsedAddress,
  hosts: readonly MxHost[],
  traits: AddressTraits,
  memo: BatchMemo | undefined,
  signal?: AbortSignal,
  evidence?: CheckEvidence,
): Promise<{ finding: Finding; outcome: ProbeOutcome }> {
  const { dispatcher } = parts;
  // Started before the address's own probe so both ride the same pipelined transaction.
  const catchAll = acceptsEveryRcpt(traits.providerFamily)
    ? Promise.resolve(null)
    : (memo?.catchAll.get(address.domain) ?? memoized(memo?.catchAll, address.domain, () => catchAllOf(parts, address.domain, hosts)));
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
  parts.book.concluded(evidence, address.domain, outcome, accepted ? await catchAll : null);
  return { finding: { kind: 'probe', outcome, catchAll: accepted ? await catchAll : null } satisfies Finding, outcome };
}

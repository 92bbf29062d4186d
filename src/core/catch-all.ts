/**
 * A domain's catch-all status: probed once per domain with a random local part no one has
 * (cached; concurrent askers share the probe). "Could not tell" (greylisted or tarpitted probe)
 * is kept a minute only, so a domain that stalls the probe does not stall every check, yet the
 * answer is soon asked again.
 */
import { randomBytes } from 'node:crypto';
import { classifyRcptReply } from './replies/classify-by-table.js';
import type { MxHost } from './dns/mail-hosts.js';
import type { EngineParts } from './engine-parts.js';

const catchAllKey = (domain: string): string => `catchall:${domain}`;

/** A local part no one has: its acceptance means the domain accepts everything. */
function randomLocalPart(): string {
  return `presend-${randomBytes(10).toString('hex')}`;
}

async function probeCatchAll(parts: EngineParts, domain: string, hosts: readonly MxHost[]): Promise<boolean | null> {
  const recipient = `${randomLocalPart()}@${domain}`;
  const outcome = await parts.dispatcher.probe({ recipient, needsUtf8: false, urgent: true }, hosts);
  const judged = outcome.kind === 'reply' ? classifyRcptReply(outcome.reply).class : null;
  const value = judged === 'accepted' ? true : judged === 'no_mailbox' || judged === 'disabled' ? false : null;
  // The probe's address and reply, for the checks that explain themselves (evidence/evidence-book.ts).
  parts.book.catchAllProbed(domain, recipient, outcome, value);
  return value;
}

/** Starts the probe now (its RCPT is queued before this returns), unless one is under way. */
export function startCatchAll(parts: EngineParts, domain: string, hosts: readonly MxHost[]): Promise<boolean | null> {
  const { cache, tuning } = parts;
  return parts.flights.run(catchAllKey(domain), async () => {
    const value = await probeCatchAll(parts, domain, hosts);
    await cache.set(catchAllKey(domain), value, value === null ? Math.min(60_000, tuning.catchAllTtlMs) : tuning.catchAllTtlMs);
    return value;
  });
}

/** The cached status: true, false, null (could not tell), or undefined (not known). */
export function cachedCatchAll(parts: EngineParts, domain: string): Promise<boolean | null | undefined> {
  return parts.cache.get<boolean | null>(catchAllKey(domain));
}

/** The cached status, or a probe started for it. */
export async function catchAllOf(parts: EngineParts, domain: string, hosts: readonly MxHost[]): Promise<boolean | null> {
  const hit = await cachedCatchAll(parts, domain);
  return hit !== undefined ? hit : startCatchAll(parts, domain, hosts);
}

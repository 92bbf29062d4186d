/**
 * The engine's side of explanations: opens a recorder per check when asked
 * (VerifyOptions.explain), and remembers what each domain's catch-all probe asked and heard, so
 * every address whose verdict leans on it can show it — the probe runs once per domain and its
 * answer is cached (verify.ts), so the details are kept here, per process and bounded. A check
 * whose catch-all answer came from another process's probe (PostgreSQL's shared cache) says so.
 */
import { classifyRcptReply } from '../replies/classify-by-table.js';
import type { ProbeOutcome } from '../smtp/dispatcher.js';
import type { EvidenceCatchAll } from './evidence.js';
import { CheckEvidence, shortReply } from './recorder.js';
import type { Evidence } from './evidence.js';

const MAX_DOMAINS = 10_000;

interface ProbeSeen {
  at: number;
  address: string;
  reply: { code: number; text: string } | null;
  rule: string | null;
  value: boolean | null;
}

const resultOf = (value: boolean | null): EvidenceCatchAll['result'] =>
  value === true ? 'accepts_any_address' : value === false ? 'rejects_unknown_addresses' : 'could_not_tell';

export class EvidenceBook {
  private readonly probes = new Map<string, ProbeSeen>();

  constructor(private readonly now: () => number) {}

  open(email: string): CheckEvidence {
    return new CheckEvidence(this.now, email);
  }

  /** A catch-all probe of `domain` ended: what it asked and what the reply said. */
  catchAllProbed(domain: string, address: string, outcome: ProbeOutcome, value: boolean | null): void {
    const reply = outcome.kind === 'reply' || outcome.kind === 'mail_rejected' ? outcome.reply : null;
    if (this.probes.size >= MAX_DOMAINS) this.probes.delete(this.probes.keys().next().value ?? '');
    this.probes.delete(domain);
    this.probes.set(domain, {
      at: this.now(),
      address,
      reply: reply ? { code: reply.code, text: reply.text.slice(0, 240) } : null,
      rule: outcome.kind === 'reply' ? classifyRcptReply(outcome.reply).rule : null,
      value,
    });
  }

  /** The catch-all answer a check used, with the probe behind it when this process made it. */
  catchAllFor(domain: string, value: boolean | null, checkStarted: number): EvidenceCatchAll {
    const seen = this.probes.get(domain);
    if (!seen || seen.value !== value) return { address: null, reply: null, rule: null, result: resultOf(value), source: value === null ? 'none' : 'cache', ageMs: null };
    // Ended after the check started: it ran for this check (or one it shared). Within the same
    // millisecond it cannot be told from a cached answer, and is shown as one, 0 ms old.
    const fresh = seen.at > checkStarted;
    return { address: seen.address, reply: seen.reply, rule: seen.rule, result: resultOf(value), source: fresh ? 'probe' : 'cache', ageMs: fresh ? null : checkStarted - seen.at };
  }

  /** An address's probe ended: its deciding reply, and the catch-all answer when its acceptance leaned on one. */
  concluded(evidence: CheckEvidence | undefined, domain: string, outcome: ProbeOutcome, catchAll: boolean | null): void {
    if (!evidence) return;
    evidence.concluded(decidingReply(outcome), describeOutcome(outcome));
    if (outcome.kind === 'reply' && classifyRcptReply(outcome.reply).class === 'accepted') evidence.catchAllSeen(this.catchAllFor(domain, catchAll, evidence.started));
  }
}

/** The reply that decided a probe, with the reply-table row that read it; null when none did. */
function decidingReply(outcome: ProbeOutcome): Evidence['decidedBy'] {
  if (outcome.kind === 'reply') {
    const judged = classifyRcptReply(outcome.reply);
    return { step: 'rcpt', host: outcome.host, reply: shortReply(outcome.reply), rule: { id: judged.rule, class: judged.class, source: judged.source } };
  }
  if (outcome.kind === 'mail_rejected') return { step: 'mail', host: outcome.host, reply: shortReply(outcome.reply), rule: null };
  return null;
}

/** What ended a probe that no reply decided, in a few words. */
function describeOutcome(outcome: ProbeOutcome): string {
  switch (outcome.kind) {
    case 'reply':
      return `answered at RCPT by ${outcome.host ?? 'the MX host'}`;
    case 'mail_rejected':
      return `MAIL FROM refused by ${outcome.host ?? 'the MX host'}`;
    case 'failure':
      return `${outcome.failure.kind} at ${outcome.failure.step}: ${outcome.failure.detail}`;
    case 'host_throttled':
      return `the host kept throttling us: ${outcome.detail}`;
    case 'utf8_unsupported':
      return 'the server does not offer SMTPUTF8, which this address needs';
    case 'private_mx_refused':
      return 'every MX host resolves to a private address: not probed';
    case 'mx_unresolvable':
      return `the MX hosts have no address: ${outcome.detail}`;
    case 'mx_dns_failure':
      return `the MX hosts could not be resolved (${outcome.failure}): ${outcome.detail}`;
    case 'aborted':
      return 'the check was stopped before the server answered';
  }
}

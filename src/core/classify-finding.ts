/**
 * From what the pipeline found to a verdict, its reasons, confidence and evidence class
 * (docs/design.md §5). Pure: every input is data, so the verdict table is tested row by row.
 */
import { classifyRcptReply, isPolicyReply, type RcptJudgement } from './replies/classify-by-table.js';
import { acceptsEveryRcpt } from './domain/provider-family.js';
import type { SyntaxError } from './syntax/address.js';
import type { ProbeOutcome } from './smtp/dispatcher.js';
import type { SessionFailureKind } from './smtp/session.js';
import type { EvidenceClass, ProviderFamily, PublicVerdict, ReasonCode } from './types.js';
import { isEgressPaused } from './egress/routed-dispatcher.js';

export type ListHit = 'hard_bounced' | 'spamtrap' | 'spamtrap_pattern' | 'blacklisted_domain' | 'disposable_domain';
export type DnsFinding = 'nxdomain' | 'null_mx' | 'no_mx_no_a' | 'cname_loop' | 'servfail' | 'timeout' | 'error';

export type Finding =
  | { kind: 'syntax'; error: SyntaxError }
  | { kind: 'list'; hit: ListHit }
  | { kind: 'dns'; result: DnsFinding }
  | { kind: 'not_configured' }
  | { kind: 'aborted' }
  /** `catchAll`: the domain's catch-all probe result; null when it could not be learnt. */
  | { kind: 'probe'; outcome: ProbeOutcome; catchAll: boolean | null };

export interface AddressTraits {
  role: boolean;
  free: boolean;
  didYouMean: string | null;
  providerFamily: ProviderFamily | null;
}

export interface Classification {
  verdict: PublicVerdict | null;
  /** Main reason first. */
  reasons: ReasonCode[];
  /** Set for actionable verdicts only. */
  confidence: number | null;
  evidence: EvidenceClass | null;
  /**
   * The address was never asked: its host kept throttling us past the bound, or every egress
   * route is paused for its provider. No verdict; the envelope says recheck_scheduled with a
   * retry window (envelope.ts), never TRANSIENT.
   */
  unasked?: true;
  /** When the address can be asked at the earliest (epoch ms), when known: the first egress route's return. */
  retryAt?: number;
}

const verdict = (v: PublicVerdict, reason: ReasonCode, confidence: number | null, evidence: EvidenceClass | null): Classification => ({
  verdict: v,
  reasons: [reason],
  confidence,
  evidence,
});

const LIST_VERDICTS: Record<ListHit, Classification> = {
  hard_bounced: verdict('UNDELIVERABLE_BOUNCED', 'hard_bounced', 0.99, 'domain_list'),
  spamtrap: verdict('SPAMTRAP', 'spamtrap', 0.99, 'domain_list'),
  spamtrap_pattern: verdict('RISKY_SPAMTRAP', 'spamtrap_pattern', 0.6, 'domain_list'),
  blacklisted_domain: verdict('BLACKLISTED', 'blacklisted_domain', 0.99, 'domain_list'),
  disposable_domain: verdict('DISPOSABLE', 'disposable_domain', 0.98, 'domain_list'),
};

const DNS_VERDICTS: Record<DnsFinding, Classification> = {
  nxdomain: verdict('UNDELIVERABLE_NO_MAIL_SERVER', 'nxdomain', 0.99, 'dns'),
  null_mx: verdict('UNDELIVERABLE_NO_MAIL_SERVER', 'null_mx', 0.99, 'dns'),
  no_mx_no_a: verdict('UNDELIVERABLE_NO_MAIL_SERVER', 'no_mx_no_a', 0.97, 'dns'),
  cname_loop: verdict('UNKNOWN', 'cname_loop', null, 'dns'),
  servfail: verdict('TRANSIENT', 'dns_servfail', null, 'dns'),
  timeout: verdict('TRANSIENT', 'dns_timeout', null, 'dns'),
  error: verdict('TRANSIENT', 'dns_error', null, 'dns'),
};

const FAILURE_VERDICTS: Record<SessionFailureKind, Classification> = {
  refused: verdict('TRANSIENT', 'connection_refused', null, null),
  timeout: verdict('TRANSIENT', 'smtp_timeout', null, null),
  dropped: verdict('TRANSIENT', 'connection_dropped', null, null),
  temporary: verdict('TRANSIENT', 'temporary_failure', null, null),
  tls: verdict('TRANSIENT', 'tls_failure', null, null),
  proxy: verdict('TRANSIENT', 'proxy_failure', null, null),
  // Garbled, endless or oversized replies: the server is broken now, worth another try later.
  protocol: verdict('TRANSIENT', 'smtp_protocol_error', null, null),
  // A 5xx at the banner or HELO is the server refusing *us* (RFC 5321 §3.1 554).
  rejected: verdict('UNKNOWN', 'probe_blocked', null, null),
};

function fromAccepted(traits: AddressTraits, catchAll: boolean | null): Classification {
  if (acceptsEveryRcpt(traits.providerFamily)) {
    return { verdict: 'UNKNOWN_WEBMAIL', reasons: ['webmail_accepts_all', 'smtp_rcpt_accepted'], confidence: null, evidence: 'smtp_rcpt' };
  }
  if (catchAll === true) return { verdict: 'CATCH_ALL', reasons: ['catch_all_domain', 'smtp_rcpt_accepted'], confidence: 0.6, evidence: 'smtp_catch_all_probe' };
  // Not knowing whether the domain is catch-all makes an accept weaker evidence.
  const sure = catchAll === false;
  if (traits.role) return { verdict: 'ROLE', reasons: ['role_account', 'smtp_rcpt_accepted'], confidence: sure ? 0.9 : 0.75, evidence: 'smtp_rcpt' };
  return verdict('DELIVERABLE', 'smtp_rcpt_accepted', sure ? 0.95 : 0.8, 'smtp_rcpt');
}

function fromRcpt(judgement: RcptJudgement, enhanced: string | null, traits: AddressTraits, catchAll: boolean | null): Classification {
  const byCode = judgement.basis === 'code';
  switch (judgement.class) {
    case 'accepted':
      return fromAccepted(traits, catchAll);
    case 'no_mailbox':
      return verdict('UNDELIVERABLE_NO_MAILBOX', 'mailbox_not_found', enhanced === '5.1.1' ? 0.97 : byCode ? 0.93 : 0.85, 'smtp_rcpt');
    case 'disabled':
      return verdict('UNDELIVERABLE_NO_MAILBOX', 'mailbox_disabled', byCode ? 0.95 : 0.85, 'smtp_rcpt');
    case 'full':
      return verdict('MAILBOX_FULL', 'mailbox_full', byCode ? 0.9 : 0.8, 'smtp_rcpt');
    case 'greylisted':
      return verdict('GREYLISTED', 'greylisted', null, 'smtp_rcpt');
    // The server limited the prober; the session code asks again, and only a host that keeps
    // refusing leaves the address here: a recheck later, by any worker.
    case 'throttled':
      return verdict('TRANSIENT', 'throttled', null, 'smtp_rcpt');
    case 'blocked':
      return verdict('UNKNOWN', 'probe_blocked', null, 'smtp_rcpt');
    case 'temporary':
      return verdict('TRANSIENT', 'temporary_failure', null, 'smtp_rcpt');
    case 'rejected_unclassified':
      return verdict('UNKNOWN', 'rcpt_rejected_unclassified', null, 'smtp_rcpt');
  }
}

function fromProbe(outcome: ProbeOutcome, traits: AddressTraits, catchAll: boolean | null): Classification {
  switch (outcome.kind) {
    case 'reply':
      return fromRcpt(classifyRcptReply(outcome.reply), outcome.reply.enhanced, traits, catchAll);
    case 'mail_rejected':
      // MAIL FROM refused: the server judged the prober, not the mailbox.
      return outcome.reply.code < 500 && !isPolicyReply(outcome.reply)
        ? verdict('TRANSIENT', 'temporary_failure', null, null)
        : verdict('UNKNOWN', 'probe_blocked', null, null);
    case 'utf8_unsupported':
      return verdict('UNKNOWN', 'smtputf8_not_supported', null, null);
    case 'failure':
      // Not the host's failure: the egress pool has no route this provider accepts for now. The
      // address was not asked: like host_throttled, it waits for a recheck once a route is back.
      if (isEgressPaused(outcome.failure)) {
        const retryAt = outcome.failure.retryAt;
        return { verdict: null, reasons: ['egress_paused'], confidence: null, evidence: null, unasked: true, ...(retryAt !== undefined ? { retryAt } : {}) };
      }
      return FAILURE_VERDICTS[outcome.failure.kind];
    case 'private_mx_refused':
      return verdict('UNKNOWN', 'private_mx_refused', null, 'dns');
    case 'mx_unresolvable':
      return verdict('UNDELIVERABLE_NO_MAIL_SERVER', 'mx_unresolvable', 0.9, 'dns');
    case 'mx_dns_failure':
      return DNS_VERDICTS[outcome.failure];
    case 'aborted':
      return verdict('TRANSIENT', 'aborted', null, null);
    case 'host_throttled':
      return { verdict: null, reasons: ['host_throttled'], confidence: null, evidence: null, unasked: true };
  }
}

function addReason(reasons: ReasonCode[], reason: ReasonCode): void {
  if (!reasons.includes(reason)) reasons.push(reason);
}

function withTraits(base: Classification, traits: AddressTraits): Classification {
  const reasons = base.reasons.slice();
  if (traits.role) addReason(reasons, 'role_account');
  if (traits.free) addReason(reasons, 'free_provider');
  if (traits.didYouMean) addReason(reasons, 'possible_typo');
  return { ...base, reasons };
}

export function classify(finding: Finding, traits: AddressTraits): Classification {
  switch (finding.kind) {
    case 'syntax':
      return {
        verdict: null,
        reasons: finding.error === 'domain_literal' ? ['invalid_syntax', 'domain_literal'] : ['invalid_syntax'],
        confidence: null,
        evidence: 'syntax',
      };
    case 'list':
      return withTraits(LIST_VERDICTS[finding.hit], traits);
    case 'dns':
      return withTraits(DNS_VERDICTS[finding.result], traits);
    case 'not_configured':
      return withTraits(verdict('UNKNOWN', 'probe_not_configured', null, null), traits);
    case 'aborted':
      return withTraits(verdict('TRANSIENT', 'aborted', null, null), traits);
    case 'probe':
      return withTraits(fromProbe(finding.outcome, traits, finding.catchAll), traits);
  }
}

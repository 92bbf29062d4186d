/**
 * The pre-send envelope (docs/interface-spec.md §2, ClientDecisionEnvelopeV1) from a
 * classification: outcome, decision and status per verdict (docs/design.md §5), retry window,
 * billing, score and the legacy `decision` object. Pure.
 */
import type { AddressTraits, Classification } from './classify-finding.js';
import type {
  EngineResult,
  EnvelopeStatus,
  LegacyDecision,
  Outcome,
  PreSendDecision,
  PresendEnvelope,
  PublicVerdict,
  RetryWindow,
} from './types.js';

interface VerdictRow {
  outcome: Outcome;
  decision: PreSendDecision;
  status: EnvelopeStatus;
  legacy: LegacyDecision['result'];
  /** 0–100 for actionable verdicts, from confidence; null for non-verdicts. */
  score: ((confidence: number) => number) | null;
  retry: 'greylist' | 'transient' | 'full' | null;
}

const likely = (c: number): number => Math.round(c * 100);
const unlikely = (c: number): number => Math.round((1 - c) * 100);

/** docs/design.md §5, one row per verdict. */
export const VERDICT_TABLE: Record<PublicVerdict, VerdictRow> = {
  DELIVERABLE: { outcome: 'actionable_verdict', decision: 'send', status: 'completed', legacy: 'deliverable', score: likely, retry: null },
  UNDELIVERABLE_NO_MAILBOX: { outcome: 'actionable_verdict', decision: 'suppress', status: 'completed', legacy: 'undeliverable', score: unlikely, retry: null },
  UNDELIVERABLE_NO_MAIL_SERVER: { outcome: 'actionable_verdict', decision: 'suppress', status: 'completed', legacy: 'undeliverable', score: unlikely, retry: null },
  UNDELIVERABLE_BOUNCED: { outcome: 'actionable_verdict', decision: 'suppress', status: 'completed', legacy: 'undeliverable', score: unlikely, retry: null },
  CATCH_ALL: { outcome: 'actionable_verdict', decision: 'send_with_caution', status: 'completed', legacy: 'risky', score: () => 50, retry: null },
  MAILBOX_FULL: { outcome: 'actionable_verdict', decision: 'recheck_later', status: 'completed', legacy: 'risky', score: () => 30, retry: 'full' },
  DISPOSABLE: { outcome: 'actionable_verdict', decision: 'suppress', status: 'completed', legacy: 'risky', score: () => 10, retry: null },
  ROLE: { outcome: 'actionable_verdict', decision: 'send_with_caution', status: 'completed', legacy: 'risky', score: (c) => Math.round(c * 80), retry: null },
  SPAMTRAP: { outcome: 'actionable_verdict', decision: 'suppress', status: 'completed', legacy: 'undeliverable', score: () => 0, retry: null },
  RISKY_SPAMTRAP: { outcome: 'actionable_verdict', decision: 'manual_review', status: 'completed', legacy: 'risky', score: () => 10, retry: null },
  BLACKLISTED: { outcome: 'actionable_verdict', decision: 'suppress', status: 'completed', legacy: 'undeliverable', score: () => 0, retry: null },
  GREYLISTED: { outcome: 'non_verdict', decision: 'recheck_later', status: 'recheck_scheduled', legacy: 'unknown', score: null, retry: 'greylist' },
  TRANSIENT: { outcome: 'non_verdict', decision: 'recheck_later', status: 'completed', legacy: 'unknown', score: null, retry: 'transient' },
  UNKNOWN: { outcome: 'non_verdict', decision: 'do_not_decide', status: 'completed', legacy: 'unknown', score: null, retry: null },
  UNKNOWN_WEBMAIL: { outcome: 'non_verdict', decision: 'send_with_caution', status: 'completed', legacy: 'unknown', score: null, retry: null },
};

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface EnvelopeContext {
  now: Date;
  recheckDelayMs: number;
}

function retryWindow(kind: VerdictRow['retry'], context: EnvelopeContext): RetryWindow | null {
  if (kind === null) return null;
  const now = context.now.getTime();
  const at = (ms: number): string => new Date(now + ms).toISOString();
  switch (kind) {
    // Greylisting is keyed on (client IP, sender, recipient): only the same worker's retry
    // after the delay gets through, hence affinity (docs/design.md §5).
    case 'greylist':
      return { eligible_at: at(context.recheckDelayMs), expires_at: at(context.recheckDelayMs + DAY), affinity_required: true };
    case 'transient':
      return { eligible_at: at(context.recheckDelayMs), expires_at: at(context.recheckDelayMs + DAY), affinity_required: false };
    case 'full':
      return { eligible_at: at(DAY), expires_at: at(7 * DAY), affinity_required: false };
  }
}

export interface EnvelopeParts {
  envelope: PresendEnvelope;
  legacy: LegacyDecision;
  score: number | null;
}

export function buildEnvelope(classification: Classification, traits: AddressTraits, context: EnvelopeContext): EnvelopeParts {
  const { verdict, reasons, confidence, evidence } = classification;
  const mainReason = reasons[0] ?? 'invalid_syntax';
  if (classification.unasked) {
    // Not asked (its host kept throttling us, or every egress route is paused for its provider):
    // nothing decided, nothing billed; a recheck is due after the recheck delay — or when the
    // first route comes back — from any worker (the pause was not a greylist's).
    const retryAt = classification.retryAt;
    return {
      envelope: {
        contract_version: 1,
        status: 'recheck_scheduled',
        outcome: 'non_verdict',
        decision: 'recheck_later',
        verdict: null,
        provider_family: traits.providerFamily,
        confidence: null,
        reasons,
        evidence_class: null,
        retry:
          retryAt !== undefined
            ? { eligible_at: new Date(retryAt).toISOString(), expires_at: new Date(retryAt + DAY).toISOString(), affinity_required: false }
            : retryWindow('transient', context),
        billing: { disposition: 'released', credits: 0 },
        history: null,
      },
      legacy: { result: 'unknown', reason: mainReason, didYouMean: traits.didYouMean },
      score: null,
    };
  }
  if (verdict === null) {
    // Syntax invalid (docs/design.md §5, last-but-one row): no verdict, decision suppress, rejected.
    return {
      envelope: {
        contract_version: 1,
        status: 'rejected',
        outcome: 'non_verdict',
        decision: 'suppress',
        verdict: null,
        provider_family: null,
        confidence: null,
        reasons,
        evidence_class: evidence,
        retry: null,
        billing: { disposition: 'released', credits: 0 },
        history: null,
      },
      legacy: { result: 'undeliverable', reason: mainReason, didYouMean: null },
      score: null,
    };
  }
  const row = VERDICT_TABLE[verdict];
  const actionable = row.outcome === 'actionable_verdict';
  // A suspected typo asks for the data to be fixed first, unless the mailbox was proven to exist.
  const decision: PreSendDecision = traits.didYouMean && verdict !== 'DELIVERABLE' ? 'enrich_first' : row.decision;
  return {
    envelope: {
      contract_version: 1,
      status: row.status,
      outcome: row.outcome,
      decision,
      verdict,
      provider_family: traits.providerFamily,
      confidence: actionable ? confidence : null,
      reasons,
      evidence_class: evidence,
      retry: retryWindow(row.retry, context),
      billing: actionable ? { disposition: 'debited', credits: 1 } : { disposition: 'released', credits: 0 },
      history: null,
    },
    legacy: { result: row.legacy, reason: mainReason, didYouMean: traits.didYouMean },
    score: actionable && row.score && confidence !== null ? row.score(confidence) : null,
  };
}

export interface ResultFacts {
  input: string;
  email: string;
  attempts: number;
  mxHost: string | null;
}

export function buildResult(classification: Classification, traits: AddressTraits, context: EnvelopeContext, facts: ResultFacts): EngineResult {
  const parts = buildEnvelope(classification, traits, context);
  return {
    email: facts.email,
    input: facts.input,
    envelope: parts.envelope,
    legacy: parts.legacy,
    score: parts.score,
    verifiedAt: context.now.toISOString(),
    attempts: facts.attempts,
    providerFamily: traits.providerFamily ?? 'none',
    didYouMean: traits.didYouMean,
    mxHost: facts.mxHost,
  };
}

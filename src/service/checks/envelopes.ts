/**
 * Envelopes the service itself writes (the engine writes all the others): the pending
 * envelope of a 202 (docs/interface-spec.md §3) and the final form of an address still greylisted after
 * the last recheck. (A syntax-invalid list entry gets the engine's own `syntaxRejection`.)
 */
import type { PresendEnvelope } from '../../core/types.js';
import type { StoredResult } from '../../store/stored-result.js';

/** docs/interface-spec.md §3: a 202 carries status running, outcome pending, nothing decided, nothing billed. */
export function pendingEnvelope(): PresendEnvelope {
  return {
    contract_version: 1,
    status: 'running',
    outcome: 'pending',
    decision: null,
    verdict: null,
    provider_family: null,
    confidence: null,
    reasons: [],
    evidence_class: null,
    retry: null,
    billing: { disposition: 'released', credits: 0 },
    history: null,
  };
}

/**
 * Still greylisted after the last recheck: the batch must end, so the address becomes a
 * TRANSIENT non-verdict (recheck later, no affinity needed any more), released, not billed.
 * A `suppress` already decided (a complaint in the account's feedback, docs/feedback.md) stays:
 * the server's greylisting says nothing about whether the recipient wants the mail.
 */
export function greylistExhausted(result: StoredResult, now: Date, recheckDelayMs: number): StoredResult {
  return {
    ...result,
    envelope: {
      ...result.envelope,
      status: 'completed',
      outcome: 'non_verdict',
      verdict: 'TRANSIENT',
      decision: result.envelope.decision === 'suppress' ? 'suppress' : 'recheck_later',
      confidence: null,
      evidence_class: null,
      retry: {
        eligible_at: new Date(now.getTime() + recheckDelayMs).toISOString(),
        expires_at: new Date(now.getTime() + recheckDelayMs + 86_400_000).toISOString(),
        affinity_required: false,
      },
    },
    legacy: { ...result.legacy, result: 'unknown' },
    score: null,
  };
}

/** The engine failed on this item repeatedly (a bug or an outage): final `failed`, released. */
export function failedResult(now: Date): StoredResult {
  return {
    envelope: { ...pendingEnvelope(), status: 'failed', outcome: 'non_verdict', decision: 'do_not_decide', reasons: [] },
    legacy: { result: 'unknown', reason: 'engine_failure', didYouMean: null },
    score: null,
    checkedAt: now.toISOString(),
    attempts: 0,
    providerFamily: 'none',
  };
}

/**
 * Roles: ledger, verifications, batches (the rules they bill and count by). Store-independent rules both store implementations apply inside their transactions, so
 * SQLite and PostgreSQL bill, count and finalize identically (docs/design.md §3–§5).
 */
import type { AddressHistory, Billing, PresendEnvelope } from '../core/types.js';
import { NO_FEEDBACK, pickFeedback } from '../core/feedback-verdict.js';
import type { Counters } from './batch-request.js';
import type { StoredResult } from './stored-result.js';
import { DECISION_COUNTER } from './batch-request.js';

export type ItemBilling = 'none' | 'held' | 'debited' | 'released';

/**
 * How a finished check settles its hold: an actionable verdict debits the held credit,
 * anything else releases it. Unbilled (sandbox) checks show `released` with 0 credits: the
 * envelope must always carry billing, and nothing was taken.
 */
export function settle(envelope: PresendEnvelope, held: boolean): { billing: ItemBilling; envelope: Billing } {
  if (!held) return { billing: 'none', envelope: { disposition: 'released', credits: 0 } };
  if (envelope.outcome === 'actionable_verdict') return { billing: 'debited', envelope: { disposition: 'debited', credits: 1 } };
  return { billing: 'released', envelope: { disposition: 'released', credits: 0 } };
}

/**
 * The result as stored: billing and history filled in by the store, everything else as the engine
 * said. `previous` is the account's earlier checks of the address; the feedback part of the
 * history came in with the result (the service read it before the check, docs/feedback.md).
 */
export function finalizeStoredResult(result: StoredResult, billing: Billing, previous: AddressHistory | null): StoredResult {
  const feedback = result.envelope.history;
  const history: AddressHistory | null =
    previous === null && feedback === null
      ? null
      : {
          checks: previous?.checks ?? 0,
          firstCheckedAt: previous?.firstCheckedAt ?? null,
          lastCheckedAt: previous?.lastCheckedAt ?? null,
          lastVerdict: previous?.lastVerdict ?? null,
          ...pickFeedback(feedback ?? NO_FEEDBACK),
        };
  return { ...result, envelope: { ...result.envelope, billing, history } };
}

/** The history row after one more check of the address. */
export function nextHistory(previous: AddressHistory | null, result: StoredResult): AddressHistory & { firstCheckedAt: string; lastCheckedAt: string } {
  return {
    ...pickFeedback(result.envelope.history ?? NO_FEEDBACK),
    checks: (previous?.checks ?? 0) + 1,
    firstCheckedAt: previous?.firstCheckedAt ?? result.checkedAt,
    lastCheckedAt: result.checkedAt,
    lastVerdict: result.envelope.verdict,
  };
}

export function emptyCounters(total: number, unique: number): Counters {
  return {
    total,
    unique,
    duplicates: total - unique,
    pending: 0,
    completed: 0,
    failed: 0,
    rechecking: 0,
    send: 0,
    suppress: 0,
    sendWithCaution: 0,
    enrichFirst: 0,
    recheckLater: 0,
    manualReview: 0,
    doNotDecide: 0,
    creditsHeld: 0,
    creditsDebited: 0,
    creditsReleased: 0,
  };
}

/** One aggregated group of items: the counters are a sum over these. */
export interface ItemGroup {
  state: 'pending' | 'claimed' | 'recheck' | 'final';
  envelopeStatus: string | null;
  decision: string | null;
  billing: ItemBilling;
  count: number;
}

export function countersFrom(total: number, unique: number, groups: readonly ItemGroup[]): Counters {
  const c = emptyCounters(total, unique);
  for (const g of groups) {
    if (g.state === 'pending' || g.state === 'claimed') c.pending += g.count;
    else if (g.state === 'recheck') c.rechecking += g.count;
    else if (g.envelopeStatus === 'failed' || g.envelopeStatus === 'rejected') c.failed += g.count;
    else c.completed += g.count;
    if (g.state === 'final' && g.decision !== null) {
      const key = DECISION_COUNTER[g.decision as keyof typeof DECISION_COUNTER];
      if (key) c[key] += g.count;
    }
    if (g.billing === 'held') c.creditsHeld += g.count;
    else if (g.billing === 'debited') c.creditsDebited += g.count;
    else if (g.billing === 'released') c.creditsReleased += g.count;
  }
  return c;
}

export function addDays(now: Date, days: number): Date {
  return new Date(now.getTime() + days * 86_400_000);
}

/**
 * How a request ends once nothing is open (docs/design.md §4): `completed`, unless every item ended
 * `failed` (the engine failed on all of them, a bug or an outage) — then the request is `failed`
 * with errorCode `engine_unavailable`: not finalized, partial, counts no longer change.
 */
export function requestOutcome(unique: number, failedItems: number): { state: 'completed' | 'failed'; errorCode: string | null } {
  if (unique > 0 && failedItems === unique) return { state: 'failed', errorCode: 'engine_unavailable' };
  return { state: 'completed', errorCode: null };
}

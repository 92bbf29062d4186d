/**
 * Keeps each check's evidence (docs/evidence.md) beside its result: what the engine recorded,
 * with what the service added to the result after it — the account's decision policy rule that
 * changed the recommendation, the account's feedback that answered or changed it. A check the
 * engine did not explain (a hard bounce from the account's feedback) keeps a short evidence
 * saying so. A sandbox check keeps none: its envelope says all there is (a simulated answer), so
 * its evidence is derived when shown (`shownEvidence`), and sandbox batches of millions write
 * nothing more than before.
 *
 * Writes are gathered: the results of a tick (a batch worker's stream) go in one transaction.
 * Evidence is an explanation, not the result: a write that fails is logged and the check stands.
 */
import type { Evidence } from '../../core/evidence/evidence.js';
import type { EngineResult } from '../../core/types.js';
import type { EvidenceRole, EvidenceRow } from '../../store/roles/evidence.js';
import type { StoredResult } from '../../store/stored-result.js';
import type { Logger } from '../../logger.js';
import { POLICY_RULE_REASON, POLICY_THRESHOLD_REASON } from '../policy/apply-policy.js';

/** Rows gathered before a write goes out even within one tick. */
const FLUSH_AT = 500;

/** Evidence for a result the engine did not explain. */
function unexplained(result: Pick<EngineResult, 'envelope' | 'email' | 'verifiedAt'>): Evidence {
  const e = result.envelope;
  const outcome =
    e.evidence_class === 'sandbox'
      ? 'a sandbox key answered: the result is simulated from the address, nothing was asked on the network'
      : e.evidence_class === 'bounce_history'
        ? "decided from your own send feedback: a hard bounce, no probe needed"
        : `decided without an SMTP probe: ${e.reasons.join(', ') || 'no reason'}`;
  return {
    version: 1,
    startedAt: result.verifiedAt,
    finishedAt: result.verifiedAt,
    durationMs: 0,
    email: result.email,
    mxHosts: null,
    facts: [],
    transcript: [],
    dropped: 0,
    catchAll: null,
    decidedBy: null,
    outcome,
    notes: [],
  };
}

/** The engine's evidence and what the service did to the result after it (policy, feedback). */
export function evidenceOf(result: EngineResult, stored: StoredResult): Evidence {
  const base = result.evidence ?? unexplained(result);
  const reasons = stored.envelope.reasons;
  const policyReason = reasons.includes(POLICY_THRESHOLD_REASON) ? 'policy_confidence_threshold' : reasons.includes(POLICY_RULE_REASON) ? 'policy_rule' : null;
  // The account's feedback answered or changed the result (check-feedback.ts): its evidence class or its reasons say so.
  const fromFeedback = stored.envelope.evidence_class === 'bounce_history' || stored.envelope.evidence_class === 'delivery_history';
  const feedbackReasons = reasons.filter((r) => r === 'delivered_recently' || r === 'complained' || (fromFeedback && r === 'hard_bounced'));
  return {
    ...base,
    policy: policyReason ? { reason: policyReason, from: result.envelope.decision, to: stored.envelope.decision } : null,
    feedback: feedbackReasons.length > 0 ? `your send feedback: ${feedbackReasons.join(', ')}` : null,
  };
}

/** What to show for a check: its kept evidence, or for a sandbox check (which keeps none) what its envelope implies. */
export function shownEvidence(kept: Evidence | null, email: string, result: StoredResult | null): Evidence | null {
  if (kept || !result || result.envelope.evidence_class !== 'sandbox') return kept;
  return unexplained({ envelope: result.envelope, email, verifiedAt: result.checkedAt });
}

export class EvidenceKeeper {
  private pending: EvidenceRow[] = [];
  private scheduled: Promise<void> | null = null;
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly role: EvidenceRole | undefined,
    private readonly log: Logger,
  ) {}

  /** Whether checks should be explained at all (a store to keep the evidence in). */
  get enabled(): boolean {
    return this.role !== undefined;
  }

  /** Keeps a check's evidence: written with the others of this tick. */
  keep(row: Omit<EvidenceRow, 'evidence'>, result: EngineResult, stored: StoredResult): void {
    if (!this.role || (!result.evidence && result.envelope.evidence_class === 'sandbox')) return;
    this.pending.push({ ...row, evidence: evidenceOf(result, stored) });
    if (this.pending.length >= FLUSH_AT) this.write();
    else this.scheduled ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.write());
  }

  private write(): void {
    this.scheduled = null;
    const rows = this.pending;
    this.pending = [];
    if (rows.length === 0 || !this.role) return;
    const written = this.role.record(rows).catch((err: unknown) => this.log.warn({ err, checks: rows.length }, 'could not keep the evidence of some checks; their results stand'));
    this.writes.add(written);
    void written.finally(() => this.writes.delete(written));
  }

  /** Resolves once everything kept so far is written (or given up). */
  async flush(): Promise<void> {
    this.write();
    await Promise.all([...this.writes]);
  }
}

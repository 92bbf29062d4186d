/**
 * An account's decision policy applied to one check's result as it is decided (docs/policy.md).
 * Called once where a result becomes final (single checks in verify-service.ts, batch items in
 * batch-runner.ts), before it is stored: a stored result keeps the decision it was given, and a
 * later change of policy never rewrites it. Only `decision` and `reasons` change: the verdict,
 * outcome, confidence and billing stay the check's own (billing follows the verdict's outcome).
 */
import type { PreSendDecision, ReasonCode } from '../../core/types.js';
import type { PoliciesRole, PolicyRules } from '../../store/roles/policies.js';
import type { StoredResult } from '../../store/stored-result.js';

/** Reason codes a policy adds (docs/design.md §4 `reasons`). */
export const POLICY_RULE_REASON: ReasonCode = 'policy_rule';
export const POLICY_THRESHOLD_REASON: ReasonCode = 'policy_confidence_threshold';

export function applyPolicy(result: StoredResult, rules: PolicyRules): StoredResult {
  const { envelope } = result;
  // Nothing decided yet (a 202's pending envelope), a syntax rejection (no verdict) or a failed check: not the policy's.
  if (envelope.verdict === null || envelope.decision === null || envelope.status === 'failed') return result;
  const actionable = envelope.outcome === 'actionable_verdict';
  if (actionable && rules.minConfidence !== null && envelope.confidence !== null && envelope.confidence < rules.minConfidence) {
    return withDecision(result, 'do_not_decide', POLICY_THRESHOLD_REASON);
  }
  // A suspected typo asks for the data to be fixed first, whatever the verdict's rule says.
  if (envelope.decision === 'enrich_first') return result;
  const rule = rules.decisions[envelope.verdict];
  if (rule === undefined) return result;
  return withDecision(result, rule, POLICY_RULE_REASON);
}

function withDecision(result: StoredResult, decision: PreSendDecision, reason: ReasonCode): StoredResult {
  return { ...result, envelope: { ...result.envelope, decision, reasons: [...result.envelope.reasons, reason] } };
}

/** `result` under the account's policy in force now, read from the store (so a change on any node applies at once). */
export async function underAccountPolicy(policies: PoliciesRole, accountId: string, result: StoredResult): Promise<StoredResult> {
  // Nothing to decide: no read (syntax rejections, failures).
  if (result.envelope.verdict === null || result.envelope.decision === null) return result;
  const policy = await policies.current(accountId);
  return applyPolicy(result, policy.rules);
}

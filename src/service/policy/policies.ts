/**
 * Reading and changing an account's decision policy (docs/policy.md), for the dashboard's Policy
 * page and `presend policy show|set`. A change is checked (decision-policy.ts), then stored as
 * the next version with who made it; it applies to checks decided from then on, never to stored
 * results.
 */
import type { PoliciesRole, PolicyVersion } from '../../store/roles/policies.js';
import { changeRules } from './decision-policy.js';
import type { PolicyChange } from './decision-policy.js';

/** Versions listed by `policy show` and the Policy page. */
export const POLICY_HISTORY_LIMIT = 50;

export interface PolicyOverview {
  current: PolicyVersion;
  /** Newest first, version 0 (the default) not listed. */
  history: PolicyVersion[];
}

export async function policyOverview(policies: PoliciesRole, accountId: string): Promise<PolicyOverview> {
  const [current, history] = await Promise.all([policies.current(accountId), policies.history(accountId, POLICY_HISTORY_LIMIT)]);
  return { current, history };
}

export type PolicyChangeOutcome =
  | { kind: 'set'; policy: PolicyVersion }
  /** Nothing written: the change is refused (`message` says why), or another change came first (`stale`). */
  | { kind: 'refused'; message: string }
  | { kind: 'stale'; current: number };

export async function changePolicy(
  policies: PoliciesRole,
  input: { accountId: string; change: PolicyChange; changedBy: string; expectedVersion?: number; now: Date },
): Promise<PolicyChangeOutcome> {
  const current = await policies.current(input.accountId);
  if (input.expectedVersion !== undefined && input.expectedVersion !== current.version) return { kind: 'stale', current: current.version };
  const changed = changeRules(current.rules, input.change);
  if (!changed.ok) return { kind: 'refused', message: changed.message };
  return policies.set({
    accountId: input.accountId,
    rules: changed.rules,
    changedBy: input.changedBy,
    // The rules were computed from `current`: written only if it is still the one in force.
    expectedVersion: current.version,
    now: input.now,
  });
}

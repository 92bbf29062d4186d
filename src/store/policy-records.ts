/**
 * An account's decision policy as the store keeps it (docs/policy.md): the owner's rules, one
 * immutable row per version. The store keeps what it is given; the rules are checked before
 * (src/service/policy/decision-policy.ts) and applied to new checks only
 * (src/service/policy/apply-policy.ts).
 */
import type { PreSendDecision, PublicVerdict } from '../core/types.js';

export interface PolicyRules {
  /** The owner's decision per verdict; a verdict not named here keeps the default table's (docs/design.md §5). */
  decisions: Partial<Record<PublicVerdict, PreSendDecision>>;
  /** An actionable verdict whose confidence is below this becomes `do_not_decide`; null: no threshold. */
  minConfidence: number | null;
}

export interface PolicyVersion {
  accountId: string;
  /** 0 is the default policy, which no one set; every change adds the next version. */
  version: number;
  rules: PolicyRules;
  /** Who made this version: an owner's email in the dashboard, `cli:<user>` for `presend policy set`; null for version 0. */
  changedBy: string | null;
  /** Null for version 0. */
  changedAt: string | null;
}

export const DEFAULT_RULES: PolicyRules = { decisions: {}, minConfidence: null };

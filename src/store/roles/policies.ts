/**
 * Role: policies. An account's decision policy (docs/policy.md), one immutable row per version:
 * a change adds the next version and never edits one, so the history is the table itself. The
 * policy in force is read from the store for every check decided (no process keeps a copy), so a
 * change made on one node or by `presend policy set` applies on every node at once.
 */
import type { Db } from '../sql.js';
import type { PreSendDecision, PublicVerdict } from '../../core/types.js';

/**
 * An account's decision policy (docs/policy.md), versioned: each change is a new version, none is
 * ever edited. Rules are checked by the service before they come here.
 */
export interface PoliciesRole {
  /** The version in force; version 0 (the default table, no rules) when none was ever set. */
  current(accountId: string): Promise<PolicyVersion>;
  /** Newest first; version 0 is not listed. */
  history(accountId: string, limit: number): Promise<PolicyVersion[]>;
  /**
   * Adds the next version. With `expectedVersion`, nothing is written when another change came
   * first (`stale`, with the version now in force): a form sent from an old page does not undo it.
   */
  set(input: { accountId: string; rules: PolicyRules; changedBy: string; expectedVersion?: number; now: Date }): Promise<{ kind: 'set'; policy: PolicyVersion } | { kind: 'stale'; current: number }>;
}

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

interface PolicyRow {
  account_id: string;
  version: number;
  decisions: string;
  min_confidence: number | null;
  changed_by: string;
  changed_at: string;
}

const toVersion = (r: PolicyRow): PolicyVersion => ({
  accountId: r.account_id,
  version: Number(r.version),
  rules: { decisions: JSON.parse(r.decisions) as PolicyRules['decisions'], minConfidence: r.min_confidence === null ? null : Number(r.min_confidence) },
  changedBy: r.changed_by,
  changedAt: r.changed_at,
});

const defaultVersion = (accountId: string): PolicyVersion => ({ accountId, version: 0, rules: DEFAULT_RULES, changedBy: null, changedAt: null });

const COLUMNS = 'account_id, version, decisions, min_confidence, changed_by, changed_at';

export function policiesRole(db: Db): PoliciesRole {
  return {
    async current(accountId) {
      const row = await db.get<PolicyRow>(`SELECT ${COLUMNS} FROM decision_policies WHERE account_id = ? ORDER BY version DESC LIMIT 1`, [accountId]);
      return row ? toVersion(row) : defaultVersion(accountId);
    },

    async history(accountId, limit) {
      const rows = await db.all<PolicyRow>(`SELECT ${COLUMNS} FROM decision_policies WHERE account_id = ? ORDER BY version DESC LIMIT ?`, [accountId, limit]);
      return rows.map(toVersion);
    },

    async set({ accountId, rules, changedBy, expectedVersion, now }) {
      return db.write(async (tx) => {
        // The account row is the lock: two changes at once are numbered one after the other.
        await tx.get(`SELECT id FROM accounts WHERE id = ? ${tx.dialect.forUpdate()}`, [accountId]);
        const top = await tx.get<{ version: number | null }>('SELECT MAX(version) AS version FROM decision_policies WHERE account_id = ?', [accountId]);
        const current = Number(top?.version ?? 0);
        if (expectedVersion !== undefined && expectedVersion !== current) return { kind: 'stale' as const, current };
        const row = await tx.get<PolicyRow>(
          `INSERT INTO decision_policies (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
          [accountId, current + 1, JSON.stringify(rules.decisions), rules.minConfidence, changedBy, now],
        );
        if (!row) throw new Error('INSERT … RETURNING gave no row');
        return { kind: 'set' as const, policy: toVersion(row) };
      });
    },
  };
}

/**
 * Role: evidence. How each check reached its verdict (docs/evidence.md), kept beside its result
 * for the result retention: a single check's by its verification id, a batch item's by its
 * request id and address. Rows come in many at a time (a batch worker's results): one
 * multi-row upsert per slice, so a chunk of results costs a statement or two, not one per item.
 * A recheck's evidence replaces the earlier one. Purged by the retention role.
 */
import type { Evidence } from '../../core/evidence/evidence.js';
import type { StoredResult } from '../stored-result.js';
import type { Db } from '../sql.js';

/** One check's evidence to keep: a single check (`check`, by its verification id) or a batch item (`item`, by its request id). */
export interface EvidenceRow {
  accountId: string;
  checkId: string;
  email: string;
  kind: 'check' | 'item';
  evidence: Evidence;
  now: Date;
}

/** How each check reached its verdict (docs/evidence.md), kept for the result retention. */
export interface EvidenceRole {
  /** Keeps many at once (one transaction); a later one for the same check and address replaces the earlier. */
  record(rows: readonly EvidenceRow[]): Promise<void>;
  /** A check's evidence, for its own account only; null when none was kept (or it was purged). */
  ofCheck(accountId: string, checkId: string, email: string): Promise<Evidence | null>;
  /**
   * One address of a batch, for its own account: its state, its result once final, its evidence
   * (null before its first probe ended); null when the batch has no such address.
   */
  ofItem(accountId: string, requestId: string, email: string): Promise<{ state: string; result: StoredResult | null; evidence: Evidence | null } | null>;
}

/** Rows per INSERT: 6 parameters each, well under either dialect's parameter limit. */
const ROWS_PER_STATEMENT = 200;

function parsed(text: string | null | undefined): Evidence | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as Evidence;
  } catch {
    return null;
  }
}

export function evidenceRole(db: Db): EvidenceRole {
  return {
    async record(rows: readonly EvidenceRow[]) {
      if (rows.length === 0) return;
      // Last one wins for a (check, address) given twice in one call: one row per key per statement.
      const unique = [...new Map(rows.map((r) => [`${r.checkId}\u0000${r.email}`, r])).values()];
      await db.write(async (tx) => {
        for (let from = 0; from < unique.length; from += ROWS_PER_STATEMENT) {
          const slice = unique.slice(from, from + ROWS_PER_STATEMENT);
          await tx.run(
            `INSERT INTO check_evidence (check_id, email, account_id, kind, recorded_at, evidence) VALUES ${slice.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}
             ON CONFLICT (check_id, email) DO UPDATE SET evidence = excluded.evidence, recorded_at = excluded.recorded_at`,
            slice.flatMap((r) => [r.checkId, r.email, r.accountId, r.kind, r.now, JSON.stringify(r.evidence)]),
          );
        }
      });
    },

    async ofCheck(accountId, checkId, email) {
      const row = await db.get<{ evidence: string }>('SELECT evidence FROM check_evidence WHERE check_id = ? AND email = ? AND account_id = ?', [checkId, email, accountId]);
      return parsed(row?.evidence);
    },

    async ofItem(accountId, requestId, email) {
      const row = await db.get<{ state: string; result_json: string | null; evidence: string | null }>(
        `SELECT i.state, i.result_json, e.evidence FROM items i JOIN requests r ON r.id = i.request_id
         LEFT JOIN check_evidence e ON e.check_id = i.request_id AND e.email = i.email
         WHERE i.request_id = ? AND i.email = ? AND r.account_id = ?`,
        [requestId, email, accountId],
      );
      if (!row) return null;
      return { state: row.state, result: row.result_json ? (JSON.parse(row.result_json) as StoredResult) : null, evidence: parsed(row.evidence) };
    },
  };
}

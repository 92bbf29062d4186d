/**
 * Role: what the dashboard's pages read about one account — its requests, the verdicts of a
 * request, its credit ledger and usage over time. Reads only; every query is bounded by the
 * account, so an owner never reads another account's rows.
 */
import type { AccountViewsRole } from '../backend.js';
import type { LedgerEntry, LedgerKind, RequestSummary, VerdictCount } from '../owner-records.js';
import type { Db } from '../sql.js';
import type { RequestMode, RequestState } from '../store.js';
import type { PreSendDecision, PublicVerdict } from '../../core/types.js';

interface RequestRow {
  id: string;
  mode: RequestMode;
  list_id: string | null;
  state: RequestState;
  sandbox: boolean | number;
  total: number;
  unique_count: number;
  final_count: number;
  created_at: string;
  finalized_at: string | null;
  fill_position: number | null;
}

const toSummary = (r: RequestRow): RequestSummary => ({
  id: r.id,
  mode: r.mode,
  listId: r.list_id,
  state: r.state,
  sandbox: r.sandbox === true || r.sandbox === 1,
  total: Number(r.total),
  unique: Number(r.unique_count),
  final: Number(r.final_count),
  createdAt: r.created_at,
  finalizedAt: r.finalized_at,
  // A list's positions are 0 … entries − 1, so the next position to copy is the count copied.
  listRowsWritten: r.fill_position === null ? null : Number(r.fill_position),
});

interface LedgerRow {
  id: number;
  kind: LedgerKind;
  credits: number;
  request_id: string | null;
  verification_id: string | null;
  created_at: string;
}

const REQUEST_COLUMNS = 'id, mode, list_id, state, sandbox, total, unique_count, final_count, created_at, finalized_at, fill_position';

export function accountViewsRole(db: Db): AccountViewsRole {
  return {
    async recentRequests(accountId, input) {
      const columns = REQUEST_COLUMNS;
      const rows =
        input.before === undefined
          ? await db.all<RequestRow>(`SELECT ${columns} FROM requests WHERE account_id = ? ORDER BY created_at DESC, id LIMIT ?`, [accountId, input.limit])
          : await db.all<RequestRow>(`SELECT ${columns} FROM requests WHERE account_id = ? AND created_at < ? ORDER BY created_at DESC, id LIMIT ?`, [
              accountId,
              new Date(input.before),
              input.limit,
            ]);
      return rows.map(toSummary);
    },

    async requestSummary(accountId, requestId) {
      const row = await db.get<RequestRow>(`SELECT ${REQUEST_COLUMNS} FROM requests WHERE id = ? AND account_id = ?`, [requestId, accountId]);
      return row ? toSummary(row) : null;
    },

    async verdictCounts(accountId, requestId) {
      const rows = await db.all<{ verdict: PublicVerdict | null; decision: PreSendDecision | null; n: number }>(
        `SELECT i.verdict, i.decision, COUNT(*) AS n FROM items i JOIN requests r ON r.id = i.request_id
         WHERE i.request_id = ? AND r.account_id = ? AND i.state = 'final' GROUP BY i.verdict, i.decision`,
        [requestId, accountId],
      );
      return rows.map((r): VerdictCount => ({ verdict: r.verdict, decision: r.decision, count: Number(r.n) }));
    },

    async ledger(accountId, input) {
      const columns = 'id, kind, credits, request_id, verification_id, created_at';
      const rows =
        input.beforeId === undefined
          ? await db.all<LedgerRow>(`SELECT ${columns} FROM credit_ledger WHERE account_id = ? ORDER BY id DESC LIMIT ?`, [accountId, input.limit])
          : await db.all<LedgerRow>(`SELECT ${columns} FROM credit_ledger WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, [accountId, input.beforeId, input.limit]);
      return rows.map(
        (r): LedgerEntry => ({
          id: Number(r.id),
          kind: r.kind,
          credits: Number(r.credits),
          requestId: r.request_id,
          verificationId: r.verification_id,
          createdAt: r.created_at,
        }),
      );
    },

    async debitsBetween(accountId, bounds) {
      if (bounds.length < 2) return [];
      // One pass over the account's debits of the period, one sum per interval: the same SQL on
      // both dialects (day arithmetic on timestamps is where they differ).
      const sums: string[] = [];
      const params: Date[] = [];
      for (let i = 0; i + 1 < bounds.length; i++) {
        sums.push(`COALESCE(SUM(CASE WHEN created_at >= ? AND created_at < ? THEN credits ELSE 0 END), 0) AS s${i}`);
        params.push(bounds[i] as Date, bounds[i + 1] as Date);
      }
      const row = await db.get<Record<string, number>>(
        `SELECT ${sums.join(', ')} FROM credit_ledger WHERE account_id = ? AND kind = 'debit' AND created_at >= ? AND created_at < ?`,
        [...params, accountId, bounds[0] as Date, bounds[bounds.length - 1] as Date],
      );
      return sums.map((_, i) => Number(row?.[`s${i}`] ?? 0));
    },
  };
}

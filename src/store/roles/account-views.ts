/**
 * Role: what the dashboard's pages read about one account — its requests, the verdicts of a
 * request, its credit ledger and usage over time. Reads only; every query is bounded by the
 * account, so an owner never reads another account's rows.
 */
import type { Db } from '../sql.js';
import type { RequestMode, RequestState } from '../batch-request.js';
import type { PreSendDecision, PublicVerdict } from '../../core/types.js';

/** What the dashboard's pages read about an account: its requests, verdicts, ledger and usage. */
export interface AccountViewsRole {
  /** Newest first; `before` pages on (the createdAt of the last one shown). */
  recentRequests(accountId: string, input: { limit: number; before?: string }): Promise<RequestSummary[]>;
  /** One request of the account (with the list it came from); null for another account's. */
  requestSummary(accountId: string, requestId: string): Promise<RequestSummary | null>;
  /** Final items of a request of the account by verdict and decision; empty for another account's. */
  verdictCounts(accountId: string, requestId: string): Promise<VerdictCount[]>;
  /** Newest first; `beforeId` pages on. */
  ledger(accountId: string, input: { limit: number; beforeId?: number }): Promise<LedgerEntry[]>;
  /** Credits debited in each [bounds[i], bounds[i+1]) interval: bounds.length − 1 sums. */
  debitsBetween(accountId: string, bounds: readonly Date[]): Promise<number[]>;
}

/** A batch request as listed on the batches page (counters: batches.get). */
export interface RequestSummary {
  id: string;
  mode: RequestMode;
  listId: string | null;
  state: RequestState;
  sandbox: boolean;
  total: number;
  unique: number;
  /** Items final so far. */
  final: number;
  createdAt: string;
  finalizedAt: string | null;
  /** A list batch whose list is still being copied into its items: the rows copied so far; null otherwise. */
  listRowsWritten: number | null;
}

export interface VerdictCount {
  verdict: PublicVerdict | null;
  decision: PreSendDecision | null;
  count: number;
}

export type LedgerKind = 'grant' | 'hold' | 'debit' | 'release';

export interface LedgerEntry {
  id: number;
  kind: LedgerKind;
  credits: number;
  requestId: string | null;
  verificationId: string | null;
  createdAt: string;
}

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

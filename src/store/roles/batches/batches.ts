/**
 * Role: batch requests and their results (`POST /v1/requests`, `GET /v1/requests/{id}` and its
 * results). Creation claims the Idempotency-Key, inserts the request and its items and holds one
 * credit per open item, in one transaction; results are recorded by item-results.ts; the last
 * open item finalizes the request here (`finalizeIfDone`), the same way on every dialect.
 */
import { randomUUID } from 'node:crypto';
import { countersFrom } from '../../billing-rules.js';
import { RequestGroups } from './request-groups.js';
import type { FinalGroup } from './request-groups.js';
import { Rollback } from '../../sql.js';
import type { Db, Tx } from '../../sql.js';
import type { BatchRequestView, CreateBatchInput, CreateBatchOutcome, ItemResultInput, ItemResultOutcome, ResultRow, ResultsSlice } from './batch-records.js';
import type { Finalization } from '../../batch-request.js';
import type { StoredResult } from '../../stored-result.js';
import type { BulkWrites } from '../dialect-parts.js';
import { claimIdempotency, retargetIdempotency } from '../idempotency.js';
import { available, hold } from '../ledger.js';
import { ItemResults } from './item-results.js';
import { finalizeIfDone, loadRequest } from './finalize.js';
import type { RequestRow } from './finalize.js';

/** Batch requests and their results (`POST /v1/requests`, `GET /v1/requests/{id}[/results]`). */
export interface BatchesRole {
  /** Idempotency claim + request + items + credit hold, atomically. Racing identical calls create one request. */
  create(input: CreateBatchInput): Promise<CreateBatchOutcome>;
  /** Null for unknown ids and requests of other accounts. */
  get(accountId: string, requestId: string): Promise<BatchRequestView | null>;
  /**
   * Stores an item's result and its billing in one transaction (results arriving together may
   * share one). A final result gets the next final sequence number of its request; the last
   * open item finalizes the request. Idempotent per item.
   */
  recordItemResult(input: ItemResultInput): Promise<ItemResultOutcome>;
  /** Final items with finalSeq > afterSeq in finality order, with the request read in the same snapshot. */
  resultsSlice(input: { accountId: string; requestId: string; afterSeq: number; limit: number }): Promise<ResultsSlice | null>;
}

/**
 * The account's unfinished batch work besides request `besides` (the one being created): open
 * items of its unfinished requests, plus the list entries not yet copied into a list batch still
 * being filled (through requests_unfinished).
 */
async function outstandingWork(tx: Tx, accountId: string, besides: string): Promise<number> {
  const row = await tx.get<{ outstanding: number | string | null }>(
    `SELECT SUM(open_count + CASE WHEN fill_position IS NULL THEN 0 ELSE total - fill_position END) AS outstanding
     FROM requests WHERE account_id = ? AND state IN ('queued', 'running') AND id <> ?`,
    [accountId, besides],
  );
  return Number(row?.outstanding ?? 0);
}

export function batchesRole(db: Db, bulk: BulkWrites, resultsPerWrite: number): BatchesRole & { idle(): Promise<void> } {
  /** Final-item sums by request (src/store/roles/batches/request-groups.ts), kept per backend. */
  const requestGroups = new RequestGroups();
  const results = new ItemResults(db, bulk, resultsPerWrite);

  /** The request's counters: the items finalized since the last look and the rechecks counted in one round trip, the rest remembered. */
  async function view(tx: Tx, r: RequestRow): Promise<BatchRequestView> {
    const counts = { id: r.id, sandbox: Boolean(r.sandbox), final_count: r.final_count, open_count: r.open_count };
    const base = requestGroups.base(counts);
    const rows = await tx.all<FinalGroup & { recheck: number | boolean; due: string | Date | null }>(
      `SELECT 0 AS recheck, envelope_status AS "envelopeStatus", decision, billing, COUNT(*) AS count, NULL AS due
         FROM items WHERE request_id = ? AND final_seq > ? AND final_seq <= ? GROUP BY envelope_status, decision, billing
       UNION ALL
       SELECT 1, NULL, NULL, 'none', COUNT(*), MIN(not_before) FROM items WHERE request_id = ? AND state = 'recheck'`,
      [r.id, base.upToSeq, r.final_count, r.id],
    );
    const waiting = rows.find((g) => Number(g.recheck) === 1);
    const rechecking = waiting?.count ?? 0;
    const forRoute =
      rechecking > 0
        ? await tx.get<{ count: number | string; due: string | Date | null }>(
            "SELECT COUNT(*) AS count, MIN(not_before) AS due FROM items WHERE request_id = ? AND state = 'recheck' AND waits_for_route = 1",
            [r.id],
          )
        : undefined;
    const added = rows.filter((g) => Number(g.recheck) === 0).map(({ envelopeStatus, decision, billing, count }) => ({ envelopeStatus, decision, billing, count }));
    return {
      id: r.id,
      accountId: r.account_id,
      mode: r.mode,
      state: r.state,
      errorCode: r.error_code,
      createdAt: r.created_at,
      retentionExpiresAt: r.retention_expires_at,
      finalization: r.finalization_json ? (JSON.parse(r.finalization_json) as Finalization) : null,
      sandbox: counts.sandbox,
      counters: countersFrom(r.total, r.unique_count, requestGroups.groups(counts, base, added, rechecking)),
      nextRecheckAt: rechecking > 0 && waiting?.due ? new Date(waiting.due).toISOString() : null,
      waitingForRoute: forRoute && Number(forRoute.count) > 0 && forRoute.due ? { count: Number(forRoute.count), retryAt: new Date(forRoute.due).toISOString() } : null,
    };
  }

  return {
    create: (input) =>
      db.write<CreateBatchOutcome>(async (tx) => {
        const id = randomUUID();
        const seen = await claimIdempotency(tx, input.accountId, input.idempotency, id, input.now);
        if (seen.kind === 'different') return new Rollback({ kind: 'idempotency_mismatch' });
        if (seen.kind === 'same') {
          const row = await loadRequest(tx, seen.targetId);
          if (row) return new Rollback({ kind: 'replay', request: await view(tx, row) });
          await retargetIdempotency(tx, input.accountId, input.idempotency, id, input.now);
        }
        const finals = input.items.filter((i) => i.finalResult);
        const open = input.items.filter((i) => !i.finalResult);
        const fill = input.fillFromList;
        // A list batch holds one credit per entry until its chunks are written (duplicates and
        // invalid entries are released then); its work is the list's length.
        const work = fill ? input.total : open.length;
        const max = input.maxOutstanding;
        /** The refusal when this batch's work would take the account past the cap, else null. */
        const pastCap = async (): Promise<Rollback<CreateBatchOutcome> | null> => {
          if (max === undefined) return null;
          const outstanding = await outstandingWork(tx, input.accountId, id);
          return outstanding + work > max ? new Rollback({ kind: 'too_much_outstanding_work', outstanding, adding: work, max }) : null;
        };
        const early = await pastCap();
        if (early) return early;
        const needed = input.billable ? work : 0;
        // A cheap look first, so a short balance costs no inserts; the binding check is the
        // conditional hold at the end, which keeps the account row locked only for the COMMIT.
        const seenAvailable = needed > 0 ? await available(tx, input.accountId) : 0;
        if (seenAvailable < needed) return new Rollback({ kind: 'insufficient_credits', available: seenAvailable, needed });
        await tx.run(
          `INSERT INTO requests (id, account_id, key_id, mode, list_id, state, sandbox, total, unique_count, final_count, open_count, created_at, fill_position, fill_lease_owner, fill_lease_expires_at,
             tally_debited, tally_released, tally_failed)
           VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0)`,
          [
            id,
            input.accountId,
            input.keyId,
            input.mode,
            input.listId,
            !input.billable,
            input.total,
            input.items.length,
            finals.length,
            open.length,
            input.now,
            fill ? 0 : null,
            fill ? fill.lease.owner : null,
            fill ? fill.lease.until : null,
          ],
        );
        await bulk.insertPendingItems(tx, id, open, input.billable ? 'held' : 'none', false);
        // Items final at creation (syntax-invalid list entries) take the first sequence numbers.
        await bulk.insertFinalItems(
          tx,
          id,
          finals.map((item, i) => {
            const r = item.finalResult as StoredResult;
            return { email: item.email, domain: item.domain, seq: i + 1, status: r.envelope.status, decision: r.envelope.decision, verdict: r.envelope.verdict, resultJson: JSON.stringify(r) };
          }),
        );
        await finalizeIfDone(tx, id, input.now, input.retentionDays);
        const created = await view(tx, (await loadRequest(tx, id)) as RequestRow);
        const short = await hold(tx, bulk, input.accountId, needed, { requestId: id }, input.now);
        if (short !== null) return new Rollback({ kind: 'insufficient_credits', available: short, needed });
        if (max !== undefined) {
          // The binding check, under the account row's lock (which `hold` already took for a billed
          // batch): a creation racing this one on another connection either committed before we
          // got the lock, and this READ COMMITTED statement counts its request, or waits for our
          // commit and counts ours. The look above, taken without the lock, only saved the inserts.
          // An UPDATE, not SELECT … FOR UPDATE: that lock conflicts with the KEY SHARE lock every
          // racing transaction's request insert holds on the account row (its foreign key), and
          // two such creations deadlocked; an UPDATE of no key column takes FOR NO KEY UPDATE,
          // which does not (PostgreSQL manual, "Row-Level Locks").
          await tx.run('UPDATE accounts SET credits_held = credits_held WHERE id = ?', [input.accountId]);
          const late = await pastCap();
          if (late) return late;
        }
        return { kind: 'created', request: created };
      }),

    get: (accountId, requestId) =>
      db.read(async (tx) => {
        const row = await loadRequest(tx, requestId);
        return row && row.account_id === accountId ? view(tx, row) : null;
      }),

    recordItemResult: (input) => results.record(input),
    idle: () => results.idle(),

    // The request and its rows come from one snapshot, so counters and rows agree.
    resultsSlice: (input) =>
      db.read(async (tx) => {
        const row = await loadRequest(tx, input.requestId);
        if (!row || row.account_id !== input.accountId) return null;
        const rows = (
          await tx.all<{ email: string; final_seq: number; result_json: string }>(
            "SELECT email, final_seq, result_json FROM items WHERE request_id = ? AND state = 'final' AND final_seq > ? ORDER BY final_seq LIMIT ?",
            [row.id, input.afterSeq, input.limit],
          )
        ).map((r): ResultRow => ({ ...(JSON.parse(r.result_json) as StoredResult), email: r.email, finalSeq: r.final_seq }));
        return { request: await view(tx, row), rows, finalCount: row.final_count };
      }),
  };
}

/** Batch requests on PostgreSQL: creation with idempotency claim and credit hold, views, results. */
import { randomUUID } from 'node:crypto';
import { Rollback } from './database.js';
import type { PgDatabase, Tx } from './database.js';
import { available, claimIdempotency, hold, retargetIdempotency } from './ledger.js';
import { addDays, countersFrom } from '../billing-rules.js';
import type { ItemGroup } from '../billing-rules.js';
import { RequestGroups } from '../request-groups.js';
import type { FinalGroup } from '../request-groups.js';
import type { BatchRequestView, CreateBatchInput, CreateBatchOutcome, Finalization, RequestMode, RequestState, ResultRow, ResultsSlice, StoredResult } from '../store.js';

export interface RequestRow {
  id: string;
  account_id: string;
  mode: RequestMode;
  state: RequestState;
  error_code: string | null;
  sandbox: boolean;
  total: number;
  unique_count: number;
  final_count: number;
  open_count: number;
  created_at: string;
  finalization_json: string | null;
  retention_expires_at: string | null;
}

export async function loadRequest(tx: Pick<Tx, 'one'>, id: string, lock = false): Promise<RequestRow | undefined> {
  return tx.one<RequestRow>(`SELECT * FROM requests WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
}

/** Final-item sums by request (src/store/request-groups.ts); keyed by random request ids, so the stores of one process can share it. */
const requestGroups = new RequestGroups();

/** The request's item groups: the items finalized since the last look and the rechecks counted in one round trip, the rest remembered. */
async function itemGroups(tx: Pick<Tx, 'q'>, r: RequestRow): Promise<ItemGroup[]> {
  const from = requestGroups.countedUpTo(r);
  const rows = await tx.q<FinalGroup & { recheck: boolean }>(
    `SELECT false AS recheck, envelope_status AS "envelopeStatus", decision, billing, COUNT(*)::int AS count
       FROM items WHERE request_id = $1 AND final_seq > $2 AND final_seq <= $3 GROUP BY envelope_status, decision, billing
     UNION ALL
     SELECT true, NULL, NULL, 'none', COUNT(*)::int FROM items WHERE request_id = $1 AND state = 'recheck'`,
    [r.id, from, r.final_count],
  );
  const rechecking = rows.find((g) => g.recheck)?.count ?? 0;
  const added = rows.filter((g) => !g.recheck).map(({ envelopeStatus, decision, billing, count }) => ({ envelopeStatus, decision, billing, count }));
  return requestGroups.groups(r, added, rechecking);
}

export async function view(tx: Pick<Tx, 'q'>, r: RequestRow): Promise<BatchRequestView> {
  const groups = await itemGroups(tx, r);
  return {
    id: r.id,
    accountId: r.account_id,
    mode: r.mode,
    state: r.state,
    errorCode: r.error_code,
    createdAt: r.created_at,
    retentionExpiresAt: r.retention_expires_at,
    finalization: r.finalization_json ? (JSON.parse(r.finalization_json) as Finalization) : null,
    sandbox: r.sandbox,
    counters: countersFrom(r.total, r.unique_count, groups),
  };
}

/** When nothing is open any more: completed, with its finalization summary and retention. The request row must be locked. */
export async function finalizeIfDone(tx: Tx, requestId: string, now: Date, retentionDays: number): Promise<boolean> {
  const r = await loadRequest(tx, requestId);
  if (!r || r.open_count > 0 || r.state === 'completed' || r.state === 'failed') return false;
  const sums = (await tx.one<{ debited: number; released: number }>(
    "SELECT COUNT(*) FILTER (WHERE billing = 'debited')::int AS debited, COUNT(*) FILTER (WHERE billing = 'released')::int AS released FROM items WHERE request_id = $1",
    [requestId],
  )) as { debited: number; released: number };
  const finalization: Finalization = {
    finalizedAt: now.toISOString(),
    outcome: 'completed',
    results: r.final_count,
    creditsDebited: sums.debited,
    creditsReleased: sums.released,
  };
  await tx.q("UPDATE requests SET state = 'completed', finalized_at = $2, finalization_json = $3, retention_expires_at = $4 WHERE id = $1", [
    requestId,
    now,
    JSON.stringify(finalization),
    addDays(now, retentionDays),
  ]);
  return true;
}

export function createBatchRequest(db: PgDatabase, input: CreateBatchInput): Promise<CreateBatchOutcome> {
  return db.tx<CreateBatchOutcome>(async (tx) => {
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
    const needed = input.billable ? open.length : 0;
    // A cheap unlocked look first, so a short balance costs no inserts; the binding check is the
    // conditional hold at the end, which keeps the account row locked only for the COMMIT.
    const seenAvailable = needed > 0 ? await available(tx, input.accountId) : 0;
    if (seenAvailable < needed) return new Rollback({ kind: 'insufficient_credits', available: seenAvailable, needed });
    await tx.q(
      `INSERT INTO requests (id, account_id, key_id, mode, list_id, state, sandbox, total, unique_count, final_count, open_count, created_at)
       VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9, $10, $11)`,
      [id, input.accountId, input.keyId, input.mode, input.listId, !input.billable, input.total, input.items.length, finals.length, open.length, input.now],
    );
    const CHUNK = 5_000;
    for (let start = 0; start < open.length; start += CHUNK) {
      const part = open.slice(start, start + CHUNK);
      await tx.q(
        'INSERT INTO items (request_id, email, domain, state, billing) SELECT $1, e, d, $2, $3 FROM unnest($4::text[], $5::text[]) AS t(e, d)',
        [id, 'pending', input.billable ? 'held' : 'none', part.map((i) => i.email), part.map((i) => i.domain)],
      );
    }
    // Items final at creation (syntax-invalid list entries) take the first sequence numbers.
    for (let start = 0; start < finals.length; start += CHUNK) {
      const part = finals.slice(start, start + CHUNK);
      const results = part.map((i) => i.finalResult as StoredResult);
      await tx.q(
        `INSERT INTO items (request_id, email, domain, state, billing, final_seq, envelope_status, decision, verdict, result_json)
         SELECT $1, e, d, 'final', 'none', $2::int + n, s, dc, v, r
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS t(e, d, s, dc, v, r, n)`,
        [
          id,
          start,
          part.map((i) => i.email),
          part.map((i) => i.domain),
          results.map((r) => r.envelope.status),
          results.map((r) => r.envelope.decision),
          results.map((r) => r.envelope.verdict),
          results.map((r) => JSON.stringify(r)),
        ],
      );
    }
    await finalizeIfDone(tx, id, input.now, input.retentionDays);
    const created = await view(tx, (await loadRequest(tx, id)) as RequestRow);
    const short = await hold(tx, input.accountId, needed, { requestId: id }, input.now);
    if (short !== null) return new Rollback({ kind: 'insufficient_credits', available: short, needed });
    return { kind: 'created', request: created };
  });
}

export async function getRequest(db: PgDatabase, accountId: string, requestId: string): Promise<BatchRequestView | null> {
  return db.tx(
    async (tx) => {
      const row = await loadRequest(tx, requestId);
      return row && row.account_id === accountId ? view(tx, row) : null;
    },
    { isolation: 'repeatable read', readOnly: true },
  );
}

/** The request and its rows come from one snapshot, so counters and rows agree. */
export function getResultsSlice(db: PgDatabase, input: { accountId: string; requestId: string; afterSeq: number; limit: number }): Promise<ResultsSlice | null> {
  return db.tx(
    async (tx) => {
      const row = await loadRequest(tx, input.requestId);
      if (!row || row.account_id !== input.accountId) return null;
      const rows = (
        await tx.q<{ email: string; final_seq: number; result_json: string }>(
          "SELECT email, final_seq, result_json FROM items WHERE request_id = $1 AND state = 'final' AND final_seq > $2 ORDER BY final_seq LIMIT $3",
          [row.id, input.afterSeq, input.limit],
        )
      ).map((r): ResultRow => ({ ...(JSON.parse(r.result_json) as StoredResult), email: r.email, finalSeq: r.final_seq }));
      return { request: await view(tx, row), rows, finalCount: row.final_count };
    },
    { isolation: 'repeatable read', readOnly: true },
  );
}

export async function queueDepth(db: PgDatabase): Promise<number> {
  const row = await db.one<{ n: number }>("SELECT COUNT(*)::int AS n FROM items WHERE state <> 'final'");
  return row?.n ?? 0;
}

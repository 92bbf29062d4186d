/** Batch requests and their items on SQLite: creation with hold, leasing, results, finalization. */
import { randomUUID } from 'node:crypto';
import type { SqliteContext } from './context.js';
import { addDays, countersFrom, finalizeStoredResult, nextHistory, requestOutcome, settle } from '../billing-rules.js';
import type { ItemBilling } from '../billing-rules.js';
import { RequestGroups } from '../request-groups.js';
import type { FinalGroup } from '../request-groups.js';
import type {
  BatchRequestView,
  ClaimInput,
  ClaimedItem,
  CreateBatchInput,
  CreateBatchOutcome,
  Finalization,
  ItemResultInput,
  ItemResultOutcome,
  RequestMode,
  RequestState,
  ResultRow,
  ResultsSlice,
  StoredResult,
} from '../store.js';

export const BATCH_ROUTE = 'POST /v1/requests';

interface RequestRow {
  id: string;
  account_id: string;
  mode: RequestMode;
  state: RequestState;
  error_code: string | null;
  sandbox: number;
  total: number;
  unique_count: number;
  final_count: number;
  open_count: number;
  created_at: string;
  finalization_json: string | null;
  retention_expires_at: string | null;
}

function loadRequest(ctx: SqliteContext, id: string): RequestRow | undefined {
  return ctx.stmt('SELECT * FROM requests WHERE id = ?').get(id) as RequestRow | undefined;
}

const requestGroups = new WeakMap<SqliteContext, RequestGroups>();

/** The request's item groups (src/store/request-groups.ts): the newly final items and the rechecks counted, the rest remembered. */
function itemGroups(ctx: SqliteContext, r: RequestRow) {
  let groups = requestGroups.get(ctx);
  if (!groups) requestGroups.set(ctx, (groups = new RequestGroups()));
  const counts = { id: r.id, sandbox: r.sandbox === 1, final_count: r.final_count, open_count: r.open_count };
  const from = groups.countedUpTo(counts);
  const added =
    from < r.final_count
      ? (ctx
          .stmt(
            `SELECT envelope_status AS envelopeStatus, decision, billing, COUNT(*) AS count FROM items
             WHERE request_id = ? AND final_seq > ? AND final_seq <= ? GROUP BY envelope_status, decision, billing`,
          )
          .all(r.id, from, r.final_count) as FinalGroup[])
      : [];
  const rechecking = (ctx.stmt("SELECT COUNT(*) AS n FROM items WHERE state = 'recheck' AND request_id = ?").get(r.id) as { n: number }).n;
  return groups.groups(counts, added, rechecking);
}

function view(ctx: SqliteContext, r: RequestRow): BatchRequestView {
  return {
    id: r.id,
    accountId: r.account_id,
    mode: r.mode,
    state: r.state,
    errorCode: r.error_code,
    createdAt: r.created_at,
    retentionExpiresAt: r.retention_expires_at,
    finalization: r.finalization_json ? (JSON.parse(r.finalization_json) as Finalization) : null,
    sandbox: r.sandbox === 1,
    counters: countersFrom(r.total, r.unique_count, itemGroups(ctx, r)),
  };
}

/** When nothing is open any more: completed (or failed), with its finalization summary and retention. */
function finalizeIfDone(ctx: SqliteContext, requestId: string, now: Date, retentionDays: number): boolean {
  const r = loadRequest(ctx, requestId);
  if (!r || r.open_count > 0 || r.state === 'completed' || r.state === 'failed') return false;
  const sums = ctx
    .stmt(
      "SELECT SUM(billing = 'debited') AS debited, SUM(billing = 'released') AS released, SUM(envelope_status = 'failed') AS failed FROM items WHERE request_id = ?",
    )
    .get(requestId) as { debited: number | null; released: number | null; failed: number | null };
  const outcome = requestOutcome(r.unique_count, sums.failed ?? 0);
  const finalization: Finalization = {
    finalizedAt: now.toISOString(),
    outcome: outcome.state,
    results: r.final_count,
    creditsDebited: sums.debited ?? 0,
    creditsReleased: sums.released ?? 0,
  };
  ctx.stmt('UPDATE requests SET state = ?, error_code = ?, finalized_at = ?, finalization_json = ?, retention_expires_at = ? WHERE id = ?').run(
    outcome.state,
    outcome.errorCode,
    finalization.finalizedAt,
    JSON.stringify(finalization),
    addDays(now, retentionDays).toISOString(),
    requestId,
  );
  return true;
}

function nextSeq(ctx: SqliteContext, requestId: string): number {
  const row = ctx.stmt('UPDATE requests SET final_count = final_count + 1 WHERE id = ? RETURNING final_count').get(requestId) as { final_count: number };
  return row.final_count;
}

export function createBatchRequest(ctx: SqliteContext, input: CreateBatchInput): CreateBatchOutcome {
  return ctx.write(() => {
    const seen = ctx.checkIdempotency(input.accountId, input.idempotency, input.now);
    if (seen.kind === 'different') return { kind: 'idempotency_mismatch' };
    if (seen.kind === 'same') {
      const row = loadRequest(ctx, seen.targetId);
      if (row) return { kind: 'replay', request: view(ctx, row) };
    }
    const open = input.items.filter((i) => !i.finalResult).length;
    const needed = input.billable ? open : 0;
    if (needed > 0) {
      const available = ctx.available(input.accountId);
      if (available < needed) return { kind: 'insufficient_credits', available, needed };
    }
    const id = randomUUID();
    ctx.stmt(
      "INSERT INTO requests (id, account_id, key_id, mode, list_id, state, sandbox, total, unique_count, open_count, created_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)",
    ).run(id, input.accountId, input.keyId, input.mode, input.listId, input.billable ? 0 : 1, input.total, input.items.length, open, input.now.toISOString());
    const pending = ctx.stmt('INSERT INTO items (request_id, email, domain, state, billing) VALUES (?, ?, ?, ?, ?)');
    const final = ctx.stmt(
      "INSERT INTO items (request_id, email, domain, state, billing, final_seq, envelope_status, decision, verdict, result_json) VALUES (?, ?, ?, 'final', 'none', ?, ?, ?, ?, ?)",
    );
    for (const item of input.items) {
      if (item.finalResult) {
        const r = item.finalResult;
        final.run(id, item.email, item.domain, nextSeq(ctx, id), r.envelope.status, r.envelope.decision, r.envelope.verdict, JSON.stringify(r));
      } else {
        pending.run(id, item.email, item.domain, 'pending', input.billable ? 'held' : 'none');
      }
    }
    ctx.ledger(input.accountId, 'hold', needed, { requestId: id }, input.now);
    ctx.rememberIdempotency(input.accountId, input.idempotency, id, input.now);
    finalizeIfDone(ctx, id, input.now, input.retentionDays);
    return { kind: 'created', request: view(ctx, loadRequest(ctx, id) as RequestRow) };
  });
}

export function getRequest(ctx: SqliteContext, accountId: string, requestId: string): BatchRequestView | null {
  return ctx.read(() => {
    const row = loadRequest(ctx, requestId);
    return row && row.account_id === accountId ? view(ctx, row) : null;
  });
}

interface ClaimRow {
  id: number;
  request_id: string;
  account_id: string;
  email: string;
  domain: string;
  sandbox: number;
  attempts: number;
  rechecks: number;
}

export function claimItems(ctx: SqliteContext, input: ClaimInput): ClaimedItem[] {
  return ctx.write(() => {
    const now = input.now.toISOString();
    const ids: number[] = [];
    const take = (rows: Array<{ id: number }>) => {
      for (const r of rows) if (ids.length < input.limit) ids.push(r.id);
    };
    // 1. leases of crashed workers; 2. greylisted items due for their recheck; 3. fresh items.
    take(ctx.stmt("SELECT id FROM items WHERE state = 'claimed' AND lease_expires_at < ? LIMIT ?").all(now, input.limit) as Array<{ id: number }>);
    if (ids.length < input.limit) {
      const graceCutoff = new Date(input.now.getTime() - input.affinityGraceMs).toISOString();
      take(
        ctx
          .stmt("SELECT id FROM items WHERE state = 'recheck' AND not_before <= ? AND (affinity = ? OR not_before <= ?) ORDER BY not_before LIMIT ?")
          .all(now, input.affinity, graceCutoff, input.limit) as Array<{ id: number }>,
      );
    }
    if (ids.length < input.limit) {
      const open = ctx.stmt("SELECT id FROM requests WHERE state IN ('queued', 'running') ORDER BY created_at, id LIMIT 20").all() as Array<{ id: string }>;
      for (const r of open) {
        if (ids.length >= input.limit) break;
        take(
          ctx
            .stmt("SELECT id FROM items WHERE state = 'pending' AND request_id = ? ORDER BY domain, id LIMIT ?")
            .all(r.id, input.limit - ids.length) as Array<{ id: number }>,
        );
      }
    }
    const lease = new Date(input.now.getTime() + input.leaseMs).toISOString();
    const claim = ctx.stmt("UPDATE items SET state = 'claimed', claimed_by = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE id = ?");
    const rows: ClaimedItem[] = [];
    const started = new Set<string>();
    for (const id of ids) {
      claim.run(input.owner, lease, id);
      const r = ctx
        .stmt(
          'SELECT i.id, i.request_id, r.account_id, i.email, i.domain, r.sandbox, i.attempts, i.rechecks FROM items i JOIN requests r ON r.id = i.request_id WHERE i.id = ?',
        )
        .get(id) as ClaimRow;
      if (!started.has(r.request_id)) {
        ctx.stmt("UPDATE requests SET state = 'running' WHERE id = ? AND state = 'queued'").run(r.request_id);
        started.add(r.request_id);
      }
      rows.push({
        itemId: r.id,
        requestId: r.request_id,
        accountId: r.account_id,
        email: r.email,
        domain: r.domain,
        sandbox: r.sandbox === 1,
        attempts: r.attempts - 1,
        rechecks: r.rechecks,
      });
    }
    return rows;
  });
}

export function renewLeases(ctx: SqliteContext, owner: string, itemIds: readonly number[], until: Date): number[] {
  return ctx.write(() => {
    const s = ctx.stmt("UPDATE items SET lease_expires_at = ? WHERE id = ? AND state = 'claimed' AND claimed_by = ?");
    return itemIds.filter((id) => s.run(until.toISOString(), id, owner).changes === 0);
  });
}

export function releaseClaims(ctx: SqliteContext, owner: string, itemIds: readonly number[]): void {
  ctx.write(() => {
    // A recheck that was handed back keeps its recheck state (rechecks > 0); a fresh item goes back to pending.
    const s = ctx.stmt(
      "UPDATE items SET state = CASE WHEN rechecks > 0 THEN 'recheck' ELSE 'pending' END, claimed_by = NULL, lease_expires_at = NULL, attempts = MAX(attempts - 1, 0) WHERE id = ? AND state = 'claimed' AND claimed_by = ?",
    );
    for (const id of itemIds) s.run(id, owner);
  });
}

interface ItemRow {
  id: number;
  request_id: string;
  email: string;
  state: string;
  billing: ItemBilling;
  account_id: string;
}

export function recordItemResult(ctx: SqliteContext, input: ItemResultInput): ItemResultOutcome {
  return ctx.write(() => {
    const item = ctx
      .stmt('SELECT i.id, i.request_id, i.email, i.state, i.billing, r.account_id FROM items i JOIN requests r ON r.id = i.request_id WHERE i.id = ?')
      .get(input.itemId) as ItemRow | undefined;
    const nothing: ItemResultOutcome = { recorded: false, finalizedRequest: false, debited: 0, verdict: null };
    if (!item || item.state === 'final') return nothing;
    if (input.kind === 'recheck') {
      ctx.stmt(
        "UPDATE items SET state = 'recheck', affinity = ?, not_before = ?, rechecks = rechecks + 1, claimed_by = NULL, lease_expires_at = NULL WHERE id = ?",
      ).run(input.affinity, input.recheckAt.toISOString(), item.id);
      return { ...nothing, recorded: true };
    }
    const held = item.billing === 'held';
    const settled = settle(input.result.envelope, held);
    const previous = ctx.history(item.account_id, item.email);
    const stored = finalizeStoredResult(input.result, settled.envelope, previous);
    if (held) ctx.ledger(item.account_id, settled.billing === 'debited' ? 'debit' : 'release', 1, { requestId: item.request_id }, input.now);
    ctx.saveHistory(item.account_id, item.email, nextHistory(previous, stored));
    const seq = nextSeq(ctx, item.request_id);
    ctx.stmt(
      "UPDATE items SET state = 'final', billing = ?, final_seq = ?, envelope_status = ?, decision = ?, verdict = ?, result_json = ?, claimed_by = NULL, lease_expires_at = NULL WHERE id = ?",
    ).run(settled.billing, seq, stored.envelope.status, stored.envelope.decision, stored.envelope.verdict, JSON.stringify(stored), item.id);
    ctx.stmt('UPDATE requests SET open_count = open_count - 1 WHERE id = ?').run(item.request_id);
    const finalizedRequest = finalizeIfDone(ctx, item.request_id, input.now, input.retentionDays);
    return { recorded: true, finalizedRequest, debited: settled.billing === 'debited' ? 1 : 0, verdict: stored.envelope.verdict };
  });
}

export function getResultsSlice(ctx: SqliteContext, input: { accountId: string; requestId: string; afterSeq: number; limit: number }): ResultsSlice | null {
  return ctx.read(() => {
    const row = loadRequest(ctx, input.requestId);
    if (!row || row.account_id !== input.accountId) return null;
    const rows = (
      ctx
        .stmt("SELECT email, final_seq, result_json FROM items WHERE request_id = ? AND state = 'final' AND final_seq > ? ORDER BY final_seq LIMIT ?")
        .all(row.id, input.afterSeq, input.limit) as Array<{ email: string; final_seq: number; result_json: string }>
    ).map((r): ResultRow => ({ ...(JSON.parse(r.result_json) as StoredResult), email: r.email, finalSeq: r.final_seq }));
    return { request: view(ctx, row), rows, finalCount: row.final_count };
  });
}

export function queueDepth(ctx: SqliteContext): number {
  return (ctx.stmt("SELECT COALESCE(SUM(open_count), 0) AS n FROM requests WHERE state IN ('queued', 'running')").get() as { n: number }).n;
}

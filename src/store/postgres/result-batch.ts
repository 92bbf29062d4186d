/**
 * Item results on PostgreSQL, many per transaction. Every final result of a request moves that
 * request's row (its next final sequence number) and its account's row (the credit totals);
 * one transaction per result would serialise every worker on those two rows, one commit (and
 * one WAL flush) at a time. So results that arrive while a write is in flight are gathered and
 * written together in the next transaction: each call still gets its own outcome, each result
 * is still all-or-nothing with its billing, and a result for an item that is already final
 * changes nothing — exactly as `recordItemResult` one at a time (items.ts), which remains the
 * fallback when a gathered write fails.
 */
import type { PgDatabase, Tx } from './database.js';
import { finalizeIfDone } from './batches.js';
import * as single from './items.js';
import { finalizeStoredResult, nextHistory, settle } from '../billing-rules.js';
import type { ItemBilling } from '../billing-rules.js';
import type { AddressHistory, PublicVerdict } from '../../core/types.js';
import type { ItemResultInput, ItemResultOutcome } from '../store.js';

interface ItemRow {
  id: number;
  request_id: string;
  email: string;
  state: string;
  billing: ItemBilling;
  account_id: string;
}

const NOTHING: ItemResultOutcome = { recorded: false, finalizedRequest: false, debited: 0, verdict: null };

interface FinalWrite {
  index: number;
  item: ItemRow;
  billing: ItemBilling;
  resultJson: string;
  status: string;
  decision: string | null;
  verdict: PublicVerdict | null;
  /** 1-based position among this transaction's finals of the same request. */
  rank: number;
  now: Date;
  retentionDays: number;
}

async function loadHistories(tx: Tx, keys: Array<{ accountId: string; email: string }>): Promise<Map<string, AddressHistory>> {
  const rows = await tx.q<{ account_id: string; email: string; checks: number; first_checked_at: string; last_checked_at: string; last_verdict: string | null }>(
    `SELECT h.account_id, h.email, h.checks, h.first_checked_at, h.last_checked_at, h.last_verdict
     FROM address_history h JOIN unnest($1::text[], $2::text[]) AS k(a, e) ON h.account_id = k.a AND h.email = k.e
     ORDER BY h.account_id, h.email FOR UPDATE OF h`,
    [keys.map((k) => k.accountId), keys.map((k) => k.email)],
  );
  return new Map(
    rows.map((r) => [
      `${r.account_id}\n${r.email}`,
      { checks: r.checks, firstCheckedAt: r.first_checked_at, lastCheckedAt: r.last_checked_at, lastVerdict: r.last_verdict as PublicVerdict | null },
    ]),
  );
}

/** Records `inputs` in one transaction; outcomes in input order, as if recorded one after another. */
export function recordItemResults(db: PgDatabase, inputs: readonly ItemResultInput[]): Promise<ItemResultOutcome[]> {
  return db.tx(async (tx) => {
    const ids = [...new Set(inputs.map((i) => i.itemId))].sort((a, b) => a - b);
    const items = new Map(
      (
        await tx.q<ItemRow>(
          `SELECT i.id, i.request_id, i.email, i.state, i.billing, r.account_id FROM items i JOIN requests r ON r.id = i.request_id
           WHERE i.id = ANY($1::bigint[]) ORDER BY i.id FOR UPDATE OF i`,
          [ids],
        )
      ).map((r) => [r.id, r]),
    );
    const outcomes: ItemResultOutcome[] = inputs.map(() => NOTHING);
    const finalized = new Set<number>();
    const rechecks: Array<{ id: number; affinity: string; at: Date }> = [];
    const finalInputs: Array<{ index: number; item: ItemRow; input: Extract<ItemResultInput, { kind: 'final' }> }> = [];
    inputs.forEach((input, index) => {
      const item = items.get(input.itemId);
      if (!item || item.state === 'final' || finalized.has(item.id)) return;
      if (input.kind === 'recheck') {
        rechecks.push({ id: item.id, affinity: input.affinity, at: input.recheckAt });
        outcomes[index] = { ...NOTHING, recorded: true };
        return;
      }
      finalized.add(item.id);
      finalInputs.push({ index, item, input });
    });

    if (rechecks.length > 0) {
      await tx.q(
        `UPDATE items i SET state = 'recheck', affinity = d.affinity, not_before = d.at, rechecks = i.rechecks + 1, claimed_by = NULL, lease_expires_at = NULL
         FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS d(id, affinity, at) WHERE i.id = d.id`,
        [rechecks.map((r) => r.id), rechecks.map((r) => r.affinity), rechecks.map((r) => r.at)],
      );
    }
    if (finalInputs.length === 0) return outcomes;

    // History and billing, computed in input order so two results for one address chain correctly.
    const keyOf = (item: ItemRow) => `${item.account_id}\n${item.email}`;
    const keys = [...new Map(finalInputs.map((f) => [keyOf(f.item), { accountId: f.item.account_id, email: f.item.email }])).values()];
    const histories = await loadHistories(tx, keys);
    const ranks = new Map<string, number>();
    const writes: FinalWrite[] = finalInputs.map(({ index, item, input }) => {
      const settled = settle(input.result.envelope, item.billing === 'held');
      const previous = histories.get(keyOf(item)) ?? null;
      const stored = finalizeStoredResult(input.result, settled.envelope, previous);
      histories.set(keyOf(item), nextHistory(previous, stored));
      const rank = (ranks.get(item.request_id) ?? 0) + 1;
      ranks.set(item.request_id, rank);
      outcomes[index] = { recorded: true, finalizedRequest: false, debited: settled.billing === 'debited' ? 1 : 0, verdict: stored.envelope.verdict };
      return {
        index,
        item,
        billing: settled.billing,
        resultJson: JSON.stringify(stored),
        status: stored.envelope.status,
        decision: stored.envelope.decision,
        verdict: stored.envelope.verdict,
        rank,
        now: input.now,
        retentionDays: input.retentionDays,
      };
    });

    const historyRows = keys.map((k) => ({ ...k, h: histories.get(`${k.accountId}\n${k.email}`) as AddressHistory }));
    await tx.q(
      `INSERT INTO address_history (account_id, email, checks, first_checked_at, last_checked_at, last_verdict)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::text[])
       ON CONFLICT (account_id, email) DO UPDATE SET checks = GREATEST(excluded.checks, address_history.checks + 1),
         last_checked_at = excluded.last_checked_at, last_verdict = excluded.last_verdict`,
      [
        historyRows.map((r) => r.accountId),
        historyRows.map((r) => r.email),
        historyRows.map((r) => r.h.checks),
        historyRows.map((r) => r.h.firstCheckedAt),
        historyRows.map((r) => r.h.lastCheckedAt),
        historyRows.map((r) => r.h.lastVerdict),
      ],
    );
    const settles = writes.filter((w) => w.item.billing === 'held');
    if (settles.length > 0) {
      // One ledger row per account, request and kind for the whole transaction, carrying the
      // number of holds it turns into debits (or releases): the totals are exactly those of one
      // row per item, at a fraction of the rows (and of their foreign-key checks).
      const entries = new Map<string, { accountId: string; kind: 'debit' | 'release'; requestId: string; credits: number; at: Date }>();
      for (const w of settles) {
        const kind = w.billing === 'debited' ? 'debit' : 'release';
        const key = `${w.item.account_id}\n${w.item.request_id}\n${kind}`;
        const entry = entries.get(key);
        if (entry) {
          entry.credits += 1;
          if (w.now > entry.at) entry.at = w.now;
        } else entries.set(key, { accountId: w.item.account_id, kind, requestId: w.item.request_id, credits: 1, at: w.now });
      }
      const rows = [...entries.values()];
      await tx.q(
        `INSERT INTO credit_ledger (account_id, kind, credits, request_id, created_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::timestamptz[])`,
        [rows.map((r) => r.accountId), rows.map((r) => r.kind), rows.map((r) => r.credits), rows.map((r) => r.requestId), rows.map((r) => r.at)],
      );
    }

    // The hot rows last, in one statement: each request's sequence numbers and open count, the
    // items' final rows, and each account's credit totals.
    const requestIds = [...ranks.keys()].sort();
    const accounts = new Map<string, { held: number; debited: number }>();
    for (const w of settles) {
      const t = accounts.get(w.item.account_id) ?? { held: 0, debited: 0 };
      t.held += 1;
      if (w.billing === 'debited') t.debited += 1;
      accounts.set(w.item.account_id, t);
    }
    const accountIds = [...accounts.keys()].sort();
    const requests = await tx.q<{ id: string; final_count: number; open_count: number }>(
      `WITH k AS (SELECT * FROM unnest($1::text[], $2::int[]) AS k(id, n)),
       r AS (
         UPDATE requests r SET final_count = r.final_count + k.n, open_count = r.open_count - k.n FROM k WHERE r.id = k.id
         RETURNING r.id, r.final_count, r.open_count, k.n
       ),
       d AS (
         -- The results travel as one JSON array (no text-array escaping of every quote); a json
         -- element's text is exactly what was sent, so each result keeps its field order.
         SELECT u.id, u.request_id, u.rank, u.billing, u.status, u.decision, u.verdict, j.value::text AS result_json
         FROM unnest($3::bigint[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY
           AS u(id, request_id, rank, billing, status, decision, verdict, n)
         JOIN json_array_elements($10::json) WITH ORDINALITY AS j(value, n) ON j.n = u.n
       ),
       it AS (
         UPDATE items i SET state = 'final', billing = d.billing, final_seq = r.final_count - r.n + d.rank, envelope_status = d.status,
           decision = d.decision, verdict = d.verdict, result_json = d.result_json, claimed_by = NULL, lease_expires_at = NULL
         FROM d JOIN r ON r.id = d.request_id WHERE i.id = d.id RETURNING i.id
       ),
       a AS (
         UPDATE accounts a SET credits_held = a.credits_held - t.held, credits_debited = a.credits_debited + t.debited
         FROM unnest($11::text[], $12::int[], $13::int[]) AS t(id, held, debited) WHERE a.id = t.id RETURNING a.id
       )
       -- it and a run to completion although nothing reads them (data-modifying WITH, PostgreSQL docs §7.8.4).
       SELECT r.id, r.final_count, r.open_count FROM r`,
      [
        requestIds,
        requestIds.map((id) => ranks.get(id) ?? 0),
        writes.map((w) => w.item.id),
        writes.map((w) => w.item.request_id),
        writes.map((w) => w.rank),
        writes.map((w) => w.billing),
        writes.map((w) => w.status),
        writes.map((w) => w.decision),
        writes.map((w) => w.verdict),
        `[${writes.map((w) => w.resultJson).join(',')}]`,
        accountIds,
        accountIds.map((id) => accounts.get(id)?.held ?? 0),
        accountIds.map((id) => accounts.get(id)?.debited ?? 0),
      ],
    );
    for (const r of requests) {
      if (r.open_count !== 0) continue;
      // The last result of the request decides its finalization time and retention.
      const last = writes.filter((w) => w.item.request_id === r.id).at(-1) as FinalWrite;
      if (await finalizeIfDone(tx, r.id, last.now, last.retentionDays)) outcomes[last.index] = { ...(outcomes[last.index] as ItemResultOutcome), finalizedRequest: true };
    }
    return outcomes;
  });
}

/**
 * Gathers concurrent `recordItemResult` calls of one process into shared transactions: the
 * first call is written at once; calls arriving meanwhile wait for it and go together in the
 * next one (up to `maxBatch`).
 */
export class ResultWriter {
  private waiting: Array<{ input: ItemResultInput; resolve: (o: ItemResultOutcome) => void; reject: (e: unknown) => void }> = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: PgDatabase,
    private readonly maxBatch = 500,
  ) {}

  record(input: ItemResultInput): Promise<ItemResultOutcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Resolves when everything handed in so far is written (before the pool closes). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxBatch);
        try {
          const outcomes = await recordItemResults(
            this.db,
            batch.map((b) => b.input),
          );
          batch.forEach((b, i) => b.resolve(outcomes[i] as ItemResultOutcome));
        } catch {
          // One bad result must not sink the others: write them one by one, each with its own error.
          for (const b of batch) await single.recordItemResult(this.db, b.input).then(b.resolve, b.reject);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}

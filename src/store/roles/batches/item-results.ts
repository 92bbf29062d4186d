/**
 * Role: batches (item results). Recording batch item results: the one transaction script for it, on every dialect. Each result
 * is all-or-nothing with its billing (a held credit debited or released), its address history
 * and its final sequence number; a result for an item already final changes nothing, so a retried
 * job or a lease taken over from a slow worker never bills twice.
 *
 * Results that arrive while a write is in flight are gathered and written together by the next
 * transaction: every final result of a request moves that request's row (its next sequence
 * number) and its account's row (the credit totals); one transaction per result would serialise
 * every worker on those two rows, one commit at a time. Each call still gets its own outcome, as
 * if recorded one after another. If a gathered write fails, its results are written one by one,
 * so one bad result cannot sink the others.
 *
 * Lock order (PostgreSQL): item rows (by id), address history rows (by key), then in the last
 * two statements the request rows and the account rows, so those hot rows are held for the
 * shortest time.
 */
import type { Db, Tx } from '../../sql.js';
import { list } from '../../sql.js';
import { finalizeStoredResult, settle } from '../../billing-rules.js';
import type { ItemBilling } from '../../billing-rules.js';
import type { ItemResultInput, ItemResultOutcome } from './batch-records.js';
import type { BulkWrites, FinalItemWrite } from '../dialect-parts.js';
import { finalizeIfDone } from './finalize.js';
import { openHistories } from '../history.js';
import { moveCredits } from '../ledger.js';
import type { LedgerEntry } from '../ledger.js';

interface ItemRow {
  id: number;
  request_id: string;
  email: string;
  state: string;
  billing: ItemBilling;
  account_id: string;
}

type FinalInput = Extract<ItemResultInput, { kind: 'final' }>;

const NOTHING: ItemResultOutcome = { recorded: false, finalizedRequest: false, debited: 0, verdict: null };

/** Records `inputs` in one transaction; outcomes in input order, as if recorded one after another. */
export async function recordItemResults(tx: Tx, bulk: BulkWrites, inputs: readonly ItemResultInput[]): Promise<ItemResultOutcome[]> {
  const ids = [...new Set(inputs.map((i) => i.itemId))].sort((a, b) => a - b);
  const items = new Map(
    (
      await tx.all<ItemRow>(
        `SELECT i.id, i.request_id, i.email, i.state, i.billing, r.account_id FROM items i JOIN requests r ON r.id = i.request_id
         WHERE i.id ${tx.dialect.inList} ORDER BY i.id${tx.dialect.forUpdate('i')}`,
        [list(ids)],
      )
    ).map((r) => [r.id, r]),
  );
  const outcomes: ItemResultOutcome[] = inputs.map(() => NOTHING);
  const finalized = new Set<number>();
  const rechecks: Array<{ id: number; affinity: string; at: Date; waitsForRoute: boolean }> = [];
  const finals: Array<{ index: number; item: ItemRow; input: FinalInput }> = [];
  inputs.forEach((input, index) => {
    const item = items.get(input.itemId);
    if (!item || item.state === 'final' || finalized.has(item.id)) return;
    if (input.kind === 'recheck') {
      rechecks.push({ id: item.id, affinity: input.affinity, at: input.recheckAt, waitsForRoute: input.waitsForRoute === true });
      outcomes[index] = { ...NOTHING, recorded: true };
      return;
    }
    finalized.add(item.id);
    finals.push({ index, item, input });
  });
  await bulk.markRechecks(tx, rechecks);
  if (finals.length === 0) return outcomes;

  // Billing and history in input order, so two results for one address chain correctly.
  const histories = await openHistories(
    tx,
    bulk,
    finals.map((f) => ({ accountId: f.item.account_id, email: f.item.email })),
  );
  const ranks = new Map<string, number>();
  const ledger = new Map<string, LedgerEntry>();
  const writes: FinalItemWrite[] = finals.map(({ index, item, input }) => {
    const settled = settle(input.result.envelope, item.billing === 'held');
    const stored = histories.record({ accountId: item.account_id, email: item.email }, (previous) => finalizeStoredResult(input.result, settled.envelope, previous));
    const rank = (ranks.get(item.request_id) ?? 0) + 1;
    ranks.set(item.request_id, rank);
    if (settled.billing === 'debited' || settled.billing === 'released') {
      // One ledger row per account, request and kind for the whole transaction, carrying the
      // number of holds it settles: the totals are those of one row per item, at a fraction of the rows.
      const kind = settled.billing === 'debited' ? 'debit' : 'release';
      const key = `${item.account_id}\n${item.request_id}\n${kind}`;
      const entry = ledger.get(key);
      if (entry) {
        entry.credits += 1;
        if (input.now > entry.at) entry.at = input.now;
      } else ledger.set(key, { accountId: item.account_id, kind, credits: 1, requestId: item.request_id, at: input.now });
    }
    outcomes[index] = { recorded: true, finalizedRequest: false, debited: settled.billing === 'debited' ? 1 : 0, verdict: stored.envelope.verdict };
    return {
      id: item.id,
      requestId: item.request_id,
      rank,
      billing: settled.billing,
      status: stored.envelope.status,
      decision: stored.envelope.decision,
      verdict: stored.envelope.verdict,
      resultJson: JSON.stringify(stored),
    };
  });
  await histories.save();
  // The hot rows last: each request's sequence numbers and open count with the items' final rows, then each account's credit totals.
  const requests = await bulk.finalizeItems(tx, writes);
  // Each request's finalization sums grow with its results (a request older than the tallies keeps NULL and is counted at the end).
  const tallies = new Map<string, { debited: number; released: number; failed: number }>();
  for (const w of writes) {
    const t = tallies.get(w.requestId) ?? { debited: 0, released: 0, failed: 0 };
    if (w.billing === 'debited') t.debited += 1;
    else if (w.billing === 'released') t.released += 1;
    if (w.status === 'failed') t.failed += 1;
    tallies.set(w.requestId, t);
  }
  for (const [id, t] of [...tallies].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await tx.run('UPDATE requests SET tally_debited = tally_debited + ?, tally_released = tally_released + ?, tally_failed = tally_failed + ? WHERE id = ?', [
      t.debited,
      t.released,
      t.failed,
      id,
    ]);
  }
  await moveCredits(tx, bulk, [...ledger.values()]);
  for (const r of requests) {
    if (r.open_count !== 0) continue;
    // The last result of the request decides its finalization time and retention.
    const last = finals.filter((f) => f.item.request_id === r.id).at(-1) as (typeof finals)[number];
    if (await finalizeIfDone(tx, r.id, last.input.now, last.input.retentionDays)) {
      outcomes[last.index] = { ...(outcomes[last.index] as ItemResultOutcome), finalizedRequest: true };
    }
  }
  return outcomes;
}

/** Gathers the `record` calls of one process into shared transactions (see the file comment). */
export class ItemResults {
  private waiting: Array<{ input: ItemResultInput; resolve: (o: ItemResultOutcome) => void; reject: (e: unknown) => void }> = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly bulk: BulkWrites,
    private readonly maxBatch = 500,
  ) {}

  record(input: ItemResultInput): Promise<ItemResultOutcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Resolves when everything handed in so far is written (before the connection closes). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxBatch);
        try {
          const outcomes = await this.db.write((tx) =>
            recordItemResults(
              tx,
              this.bulk,
              batch.map((b) => b.input),
            ),
          );
          batch.forEach((b, i) => b.resolve(outcomes[i] as ItemResultOutcome));
        } catch {
          // One bad result must not sink the others: each alone, with its own error.
          for (const b of batch) await this.db.write((tx) => recordItemResults(tx, this.bulk, [b.input])).then((o) => b.resolve(o[0] as ItemResultOutcome), b.reject);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}

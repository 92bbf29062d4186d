/**
 * Role: list batches (their fill). A batch over a stored list is created at once by the batches
 * role with its count and no items (so `POST /v1/requests` never copies a million rows while the
 * API waits); a filler (src/service/lists/list-batch-fill.ts) then copies the list into items chunk by
 * chunk, each chunk one short transaction here. Items are claimable as soon as their chunk is
 * committed; the request is finalized only once the fill is done (finalize.ts).
 *
 * The lease (`fill_lease_*`, kind `listFill` of leases.ts): the creating process's keeper renews
 * it while the fill runs; a fill whose process died lets it lapse and is taken over by another
 * process (or the next start), which resumes at `fill_position`. Two fillers that race after a
 * stall cannot both write a chunk: a chunk is written only if the request's position is still the
 * one it was read at.
 */
import { list, Rollback } from '../sql.js';
import type { Db } from '../sql.js';
import type { StoredResult } from '../stored-result.js';
import type { BulkWrites } from './dialect-parts.js';
import { finalizeIfDone } from './batches/finalize.js';
import { moveCredits } from './ledger.js';
import type { NewBatchItem } from '../batch-request.js';

/**
 * Batches over stored lists (src/store/roles/list-batches.ts): the request is created at once by
 * BatchesRole.create with its count and no items; its items are then copied from the list in
 * bounded chunks, each its own transaction, under a lease (LeasesRole, kind `listFill`), so another
 * process (or the next start) resumes a fill whose process died.
 */
export interface ListBatchesRole {
  /**
   * Writes the items of list positions [from, next): `items` are this chunk's unique entries;
   * those already in the request (a duplicate of an earlier chunk) are skipped.
   * `done` ends the fill and its lease (and finalizes the request if its items are all final). 'lost' when the
   * fill is no longer at `from` (another process took it over): nothing was written.
   */
  writeFillChunk(input: {
    requestId: string;
    from: number;
    next: number;
    done: boolean;
    items: readonly NewBatchItem[];
    now: Date;
    retentionDays: number;
  }): Promise<'written' | 'lost'>;
}

interface FillRow {
  account_id: string;
  sandbox: boolean | number;
  total: number;
  fill_position: number | null;
}

export function listBatchesRole(db: Db, bulk: BulkWrites): ListBatchesRole {
  return {
    writeFillChunk: (input) =>
      db.write(async (tx) => {
        // The request row is read without a lock and locked only by the last statements: the
        // workers' result writes move its counters all the time, and a lock held across the
        // chunk's inserts kept them waiting (PostgreSQL: 342 of 4,866 activity samples of a
        // million-address batch were result writes waiting on it, 557 the fill waiting for them).
        const stillAt = (row: { fill_position: number | null } | undefined) => row !== undefined && row.fill_position !== null && Number(row.fill_position) === input.from;
        const r = await tx.get<FillRow>('SELECT account_id, sandbox, total, fill_position FROM requests WHERE id = ?', [input.requestId]);
        if (!r || !stillAt(r)) return 'lost' as const;
        // An address already written by an earlier chunk (a duplicate across chunks) is skipped:
        // the pending items' insert skips it itself (the request's unique key), and the few final
        // ones (invalid entries) are looked up first, as their sequence numbers must stay dense.
        const pending = input.items.filter((i) => !i.finalResult);
        const finalEntries = input.items.filter((i) => i.finalResult);
        const billable = !r.sandbox;
        const opened = await bulk.insertPendingItems(tx, input.requestId, pending, billable ? 'held' : 'none', true);
        let finals = 0;
        if (finalEntries.length > 0) {
          // Entries final at once (syntax-invalid) take the request's next sequence numbers, read
          // under the row's lock (result writes hand them out too); and under it, a filler that
          // lost a race sees the other's chunk committed and stops before writing its entries again.
          const locked = await tx.get<{ final_count: number; fill_position: number | null }>(
            `SELECT final_count, fill_position FROM requests WHERE id = ?${tx.dialect.forUpdate()}`,
            [input.requestId],
          );
          if (!locked || !stillAt(locked)) return new Rollback('lost' as const);
          const known = new Set(
            (
              await tx.all<{ email: string }>(`SELECT email FROM items WHERE request_id = ? AND email ${tx.dialect.inList}`, [
                input.requestId,
                list(finalEntries.map((i) => i.email)),
              ])
            ).map((x) => x.email),
          );
          const fresh = finalEntries.filter((i) => !known.has(i.email));
          const base = Number(locked.final_count);
          await bulk.insertFinalItems(
            tx,
            input.requestId,
            fresh.map((item, i) => {
              const res = item.finalResult as StoredResult;
              return {
                email: item.email,
                domain: item.domain,
                seq: base + i + 1,
                status: res.envelope.status,
                decision: res.envelope.decision,
                verdict: res.envelope.verdict,
                resultJson: JSON.stringify(res),
              };
            }),
          );
          finals = fresh.length;
        }
        // Written only if the fill is still at `from`: two fillers racing after a stall cannot both
        // write a chunk (the second one's inserts roll back with it).
        const moved = await tx.run(
          `UPDATE requests SET unique_count = unique_count + ?, open_count = open_count + ?, final_count = final_count + ?, fill_position = ?${input.done ? ', fill_lease_owner = NULL, fill_lease_expires_at = NULL' : ''}
           WHERE id = ? AND fill_position = ?`,
          [opened + finals, opened, finals, input.done ? null : input.next, input.requestId, input.from],
        );
        if (moved === 0) return new Rollback('lost' as const);
        if (billable) {
          // The creation held one credit per list entry: this chunk's entries that became no open
          // item (duplicates, invalid entries) are released, and at the end whatever the list no
          // longer had (entries deleted while the batch was filled).
          const unused = input.next - input.from - opened + (input.done ? Math.max(0, Number(r.total) - input.next) : 0);
          await moveCredits(tx, bulk, [{ accountId: r.account_id, kind: 'release', credits: unused, requestId: input.requestId, at: input.now }]);
        }
        if (input.done) await finalizeIfDone(tx, input.requestId, input.now, input.retentionDays);
        return 'written' as const;
      }),
  };
}

/**
 * Role: list batches (their fill). A batch over a stored list is created at once by the batches
 * role with its count and no items (so `POST /v1/requests` never copies a million rows while the
 * API waits); a filler (src/service/list-batch-fill.ts) then copies the list into items chunk by
 * chunk, each chunk one short transaction here. Items are claimable as soon as their chunk is
 * committed; the request is finalized only once the fill is done (finalize.ts).
 *
 * The lease: each chunk renews `fill_lease_expires_at`; a fill whose process died lets it lapse
 * and `takeLapsedFill` hands it to another process (or the next start), which resumes at
 * `fill_position`. Two fillers that race after a stall cannot both write a chunk: a chunk is
 * written only if the request's position is still the one it was read at.
 */
import type { ListBatchesRole } from '../backend.js';
import { list } from '../sql.js';
import type { Db } from '../sql.js';
import type { StoredResult } from '../store.js';
import type { BulkWrites } from './dialect-parts.js';
import { finalizeIfDone } from './finalize.js';
import { moveCredits } from './ledger.js';

interface FillRow {
  account_id: string;
  sandbox: boolean | number;
  total: number;
  final_count: number;
  fill_position: number | null;
}

export function listBatchesRole(db: Db, bulk: BulkWrites): ListBatchesRole {
  return {
    takeLapsedFill: (now, leaseUntil) =>
      db.write(async (tx) => {
        const row = await tx.get<{ id: string; list_id: string; fill_position: number }>(
          `SELECT id, list_id, fill_position FROM requests WHERE fill_position IS NOT NULL AND fill_lease_expires_at < ?
           ORDER BY fill_lease_expires_at LIMIT 1${tx.dialect.forUpdateSkipLocked}`,
          [now],
        );
        if (!row) return null;
        await tx.run('UPDATE requests SET fill_lease_expires_at = ? WHERE id = ?', [leaseUntil, row.id]);
        return { requestId: row.id, listId: row.list_id, position: Number(row.fill_position) };
      }),

    writeFillChunk: (input) =>
      db.write(async (tx) => {
        const r = await tx.get<FillRow>(`SELECT account_id, sandbox, total, final_count, fill_position FROM requests WHERE id = ?${tx.dialect.forUpdate()}`, [
          input.requestId,
        ]);
        if (!r || r.fill_position === null || Number(r.fill_position) !== input.from) return 'lost' as const;
        // An address already written by an earlier chunk (a duplicate across chunks) is skipped:
        // the pending items' insert skips it itself (the request's unique key), and the few final
        // ones (invalid entries) are looked up first, as their sequence numbers must stay dense.
        const pending = input.items.filter((i) => !i.finalResult);
        const finalEntries = input.items.filter((i) => i.finalResult);
        const knownFinal =
          finalEntries.length === 0
            ? new Set<string>()
            : new Set(
                (
                  await tx.all<{ email: string }>(`SELECT email FROM items WHERE request_id = ? AND email ${tx.dialect.inList}`, [
                    input.requestId,
                    list(finalEntries.map((i) => i.email)),
                  ])
                ).map((x) => x.email),
              );
        const finals = finalEntries.filter((i) => !knownFinal.has(i.email));
        const billable = !r.sandbox;
        const opened = await bulk.insertPendingItems(tx, input.requestId, pending, billable ? 'held' : 'none', true);
        // Entries final at once (syntax-invalid) take the request's next sequence numbers.
        await bulk.insertFinalItems(
          tx,
          input.requestId,
          finals.map((item, i) => {
            const res = item.finalResult as StoredResult;
            return {
              email: item.email,
              domain: item.domain,
              seq: Number(r.final_count) + i + 1,
              status: res.envelope.status,
              decision: res.envelope.decision,
              verdict: res.envelope.verdict,
              resultJson: JSON.stringify(res),
            };
          }),
        );
        await tx.run(
          `UPDATE requests SET unique_count = unique_count + ?, open_count = open_count + ?, final_count = final_count + ?, fill_position = ?, fill_lease_expires_at = ?
           WHERE id = ?`,
          [opened + finals.length, opened, finals.length, input.done ? null : input.next, input.done ? null : input.leaseUntil, input.requestId],
        );
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

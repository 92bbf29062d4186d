/**
 * Role: batches (finalization). The end of a batch request, shared by its creation (a request of only rejected entries ends at
 * once) and by its results: once nothing is open it is `completed`, or `failed` with its error
 * code when every item failed (docs/design.md §4, `requestOutcome`), with its finalization summary
 * and retention — the same on every dialect.
 */
import { addDays, requestOutcome } from '../../billing-rules.js';
import type { Tx } from '../../sql.js';
import type { Finalization, RequestMode, RequestState } from '../../batch-request.js';
import { batchEventPayload } from '../webhooks/webhook-records.js';
import { enqueueWebhookEvent } from '../webhooks/webhook-outbox.js';

export interface RequestRow {
  id: string;
  account_id: string;
  mode: RequestMode;
  state: RequestState;
  error_code: string | null;
  /** boolean on PostgreSQL, 0/1 on SQLite */
  sandbox: boolean | number;
  total: number;
  unique_count: number;
  final_count: number;
  open_count: number;
  created_at: string;
  finalization_json: string | null;
  retention_expires_at: string | null;
  /** The next list position to copy into a list batch still being filled; null once every item is written. */
  fill_position: number | null;
  /** Kept as results are written (null for requests older than that: counted instead). */
  tally_debited: number | null;
  tally_released: number | null;
  tally_failed: number | null;
}

export async function loadRequest(tx: Tx, id: string): Promise<RequestRow | undefined> {
  return tx.get<RequestRow>('SELECT * FROM requests WHERE id = ?', [id]);
}

/** Finalizes the request if nothing is open (or left to write) any more; true when this call did. */
export async function finalizeIfDone(tx: Tx, requestId: string, now: Date, retentionDays: number): Promise<boolean> {
  const r = await loadRequest(tx, requestId);
  // A list batch whose items are still being copied is not done, however many of them are final.
  if (!r || r.open_count > 0 || r.fill_position !== null || r.state === 'completed' || r.state === 'failed') return false;
  const sums = r.tally_debited !== null ? { debited: Number(r.tally_debited), released: Number(r.tally_released), failed: Number(r.tally_failed) } : await countFinals(tx, requestId);
  const outcome = requestOutcome(r.unique_count, sums.failed);
  const finalization: Finalization = {
    finalizedAt: now.toISOString(),
    outcome: outcome.state,
    results: r.final_count,
    creditsDebited: sums.debited,
    creditsReleased: sums.released,
  };
  await tx.run('UPDATE requests SET state = ?, error_code = ?, finalized_at = ?, finalization_json = ?, retention_expires_at = ? WHERE id = ?', [
    outcome.state,
    outcome.errorCode,
    now,
    JSON.stringify(finalization),
    addDays(now, retentionDays),
    requestId,
  ]);
  // Announced in this same transaction (docs/webhooks.md): the finalization and its event commit together.
  const type = outcome.state === 'completed' ? 'batch.completed' : 'batch.failed';
  const counters = { total: r.total, unique: r.unique_count, completed: r.final_count - sums.failed, failed: sums.failed };
  const payload = batchEventPayload({ type, requestId, mode: r.mode, sandbox: Boolean(r.sandbox), errorCode: outcome.errorCode, finalization, counters });
  await enqueueWebhookEvent(tx, { accountId: r.account_id, type, subject: requestId, payload, now });
  return true;
}

/** The finalization sums of a request created before they were kept on its row: counted over its items. */
async function countFinals(tx: Tx, requestId: string): Promise<{ debited: number; released: number; failed: number }> {
  return (await tx.get<{ debited: number; released: number; failed: number }>(
    `SELECT COUNT(*) FILTER (WHERE billing = 'debited') AS debited, COUNT(*) FILTER (WHERE billing = 'released') AS released,
       COUNT(*) FILTER (WHERE envelope_status = 'failed') AS failed
     FROM items WHERE request_id = ?`,
    [requestId],
  )) as { debited: number; released: number; failed: number };
}

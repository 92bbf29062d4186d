/**
 * Role: work queue (the claim, SQLite). The claim of the work queue on SQLite (src/store/backend.ts WorkQueueRole.claim). One write
 * transaction holds the whole database, so no two claims ever overlap: the picking needs no row
 * locks. Order: leases of crashed workers, greylisted items due for their recheck (their own
 * worker first, anyone's after the grace period), then pending items of the oldest open
 * requests, whole domains together (so one SMTP session serves many).
 */
import { list } from '../sql.js';
import type { Tx } from '../sql.js';
import type { ClaimedItem, ClaimInput } from '../roles/work-queue.js';
import { toClaimedItems } from '../roles/index.js';

/** Open requests looked at per claim, oldest first. */
const OPEN_REQUESTS_SCANNED = 20;

async function pickIds(tx: Tx, input: ClaimInput): Promise<number[]> {
  const ids: number[] = [];
  const take = (rows: Array<{ id: number }>) => {
    for (const r of rows) if (ids.length < input.limit) ids.push(r.id);
  };
  take(await tx.all<{ id: number }>("SELECT id FROM items WHERE state = 'claimed' AND lease_expires_at < ? LIMIT ?", [input.now, input.limit]));
  if (ids.length < input.limit) {
    const graceCutoff = new Date(input.now.getTime() - input.affinityGraceMs);
    take(
      await tx.all<{ id: number }>("SELECT id FROM items WHERE state = 'recheck' AND not_before <= ? AND (affinity = ? OR not_before <= ?) ORDER BY not_before LIMIT ?", [
        input.now,
        input.affinity,
        graceCutoff,
        input.limit,
      ]),
    );
  }
  if (ids.length < input.limit) {
    const open = await tx.all<{ id: string }>("SELECT id FROM requests WHERE state IN ('queued', 'running') ORDER BY created_at, id LIMIT ?", [OPEN_REQUESTS_SCANNED]);
    for (const r of open) {
      if (ids.length >= input.limit) break;
      take(await tx.all<{ id: number }>("SELECT id FROM items WHERE state = 'pending' AND request_id = ? ORDER BY domain, id LIMIT ?", [r.id, input.limit - ids.length]));
    }
  }
  return ids;
}

export async function claimSqlite(tx: Tx, input: ClaimInput): Promise<ClaimedItem[]> {
  const ids = await pickIds(tx, input);
  if (ids.length === 0) return [];
  const lease = new Date(input.now.getTime() + input.leaseMs);
  const chosen = list(ids);
  await tx.run(`UPDATE items SET state = 'claimed', claimed_by = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE id ${tx.dialect.inList}`, [input.owner, lease, chosen]);
  await tx.run(
    `UPDATE requests SET state = 'running' WHERE state = 'queued' AND id IN (SELECT DISTINCT request_id FROM items WHERE id ${tx.dialect.inList})`,
    [chosen],
  );
  const rows = await tx.all<{ id: number; request_id: string; account_id: string; email: string; domain: string; sandbox: number; attempts: number; rechecks: number }>(
    `SELECT i.id, i.request_id, r.account_id, i.email, i.domain, r.sandbox, i.attempts, i.rechecks
     FROM items i JOIN requests r ON r.id = i.request_id WHERE i.id ${tx.dialect.inList}`,
    [chosen],
  );
  return toClaimedItems(ids, rows);
}

/**
 * Role: the work queue of batch items. The items are the queue: rows leased by a claim (each
 * dialect's own query: src/store/{sqlite,postgres}/claim.ts), renewed while a worker runs them,
 * handed back on shutdown, and taken over once a lease lapses. Wake-ups (`WakeUps`) only tell idle
 * workers to claim now rather than at their next poll.
 */
import type { WorkQueueRole } from '../backend.js';
import { list } from '../sql.js';
import type { Db } from '../sql.js';
import type { ClaimedItem } from '../store.js';
import type { DialectParts } from './dialect-parts.js';
import type { WakeUps } from '../../queue/queue.js';

export function workQueueRole(db: Db, parts: DialectParts, wakeUps: WakeUps): WorkQueueRole {
  return {
    // In slices of at most `claimPerWrite` items, each its own transaction (on SQLite each runs on
    // the event loop); the slices continue in the claim's own order, so together they take what one would.
    async claim(input) {
      const claimed: ClaimedItem[] = [];
      while (claimed.length < input.limit) {
        const want = Math.min(parts.claimPerWrite, input.limit - claimed.length);
        const got = await db.write((tx) => parts.claim(tx, { ...input, limit: want }));
        claimed.push(...got);
        if (got.length < want) break;
      }
      return claimed;
    },

    renewLeases: async (owner, itemIds, until) => {
      if (itemIds.length === 0) return [];
      const held = await db.all<{ id: number }>(
        `UPDATE items SET lease_expires_at = ? WHERE id ${db.dialect.inList} AND state = 'claimed' AND claimed_by = ? RETURNING id`,
        [until, list(itemIds), owner],
      );
      const kept = new Set(held.map((r) => r.id));
      return itemIds.filter((id) => !kept.has(id));
    },

    release: async (owner, itemIds) => {
      if (itemIds.length === 0) return;
      // A recheck that was handed back keeps its recheck state (rechecks > 0); a fresh item goes back to pending.
      await db.run(
        `UPDATE items SET state = CASE WHEN rechecks > 0 THEN 'recheck' ELSE 'pending' END, claimed_by = NULL, lease_expires_at = NULL,
           attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END
         WHERE id ${db.dialect.inList} AND state = 'claimed' AND claimed_by = ?`,
        [list(itemIds), owner],
      );
    },

    depth: async () => (await db.get<{ n: number }>("SELECT COALESCE(SUM(open_count), 0) AS n FROM requests WHERE state IN ('queued', 'running')"))?.n ?? 0,

    publish: (requestId) => wakeUps.publish(requestId),
    waitForWork: (signal, maxWaitMs) => wakeUps.waitForWork(signal, maxWaitMs),
    scheduleRecheck: (affinity, at) => wakeUps.scheduleRecheck(affinity, at),
  };
}

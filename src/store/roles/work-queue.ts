/**
 * Role: the work queue of batch items. The items are the queue: rows leased by a claim (each
 * dialect's own query: src/store/{sqlite,postgres}/claim.ts), which also takes over the items whose
 * lease lapsed; renewing and handing them back is the leases role's (kind `item`, leases.ts). Wake-ups (`WakeUps`) only tell idle
 * workers to claim now rather than at their next poll.
 */
import type { WorkQueueRole } from '../backend.js';
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

    depth: async () => (await db.get<{ n: number }>("SELECT COALESCE(SUM(open_count), 0) AS n FROM requests WHERE state IN ('queued', 'running')"))?.n ?? 0,

    publish: (requestId) => wakeUps.publish(requestId),
    waitForWork: (signal, maxWaitMs) => wakeUps.waitForWork(signal, maxWaitMs),
  };
}

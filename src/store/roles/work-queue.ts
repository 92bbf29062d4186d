/**
 * Role: the work queue of batch items. The items are the queue: rows leased by a claim (each
 * dialect's own query: src/store/{sqlite,postgres}/claim.ts), which also takes over the items whose
 * lease lapsed; renewing and handing them back is the leases role's (kind `item`, leases.ts). Wake-ups (`WakeUps`) only tell idle
 * workers to claim now rather than at their next poll.
 */
import type { Db, Tx } from '../sql.js';
import type { WakeUps } from '../../queue/queue.js';

/**
 * The work queue of batch items: the claim that leases them, plus wake-ups so an idle worker
 * hears of new work at once instead of at its next poll. Their leases are renewed and handed back
 * through LeasesRole (kind `item`).
 */
export interface WorkQueueRole {
  /**
   * Leases up to `limit` items: pending ones (oldest request first, whole domains so one SMTP
   * session serves many), greylisted ones whose recheck is due (affinity first), and claimed
   * ones whose lease expired (a crashed worker). Moves their requests to `running`.
   */
  claim(input: ClaimInput): Promise<ClaimedItem[]>;
  /** Items not yet final over all requests (metrics). */
  depth(): Promise<number>;
  /** A request with open items was created: wake the idle workers. */
  publish(requestId: string): Promise<void>;
  /** Resolves when work may be available: a publish, `maxWaitMs` elapsed, or `signal` aborted. */
  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void>;
}

/** An item handed to a worker under a lease. */
export interface ClaimedItem {
  itemId: number;
  requestId: string;
  accountId: string;
  email: string;
  domain: string;
  sandbox: boolean;
  /** How many times the item has been claimed before (crash/lease-expiry retries). */
  attempts: number;
  /** How many greylisting rechecks already happened. */
  rechecks: number;
}

export interface ClaimInput {
  /** Lease owner: unique per worker instance (process). */
  owner: string;
  /** Affinity name (same egress host): a greylisted item is rechecked by this worker first. */
  affinity: string;
  now: Date;
  leaseMs: number;
  limit: number;
  /** A greylisted item whose affinity worker has not come back within this long goes to anyone. */
  affinityGraceMs: number;
}

/** The claim query, each dialect's own ({sqlite,postgres}/claim.ts), as the dialect parts (dialect-parts.ts) carry it. */
export interface DialectClaim {
  /** WorkQueueRole.claim inside a write transaction. */
  claim(tx: Tx, input: ClaimInput): Promise<ClaimedItem[]>;
  /** Items one claim transaction takes at most (a worker's claim of more takes several). */
  claimPerWrite: number;
}

export function workQueueRole(db: Db, parts: DialectClaim, wakeUps: WakeUps): WorkQueueRole {
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

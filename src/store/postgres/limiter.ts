/**
 * The SessionLimiter shared by every worker on one PostgreSQL (DESIGN.md §1, §5): per MX host
 * at most `maxPerHost` rows in mx_session_slots hold a live lease, whichever worker holds them,
 * so the politeness limit holds summed over all workers. A slot is leased, renewed while its
 * SMTP session lives, and deleted on release; a worker that dies (SIGKILL, lost host) stops
 * renewing and its slots free themselves when the lease runs out.
 *
 * The database clock (clock_timestamp()) decides expiry, so workers whose clocks disagree
 * still agree on which leases are live.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { SessionLimiter } from '../../core/ports.js';

export interface PgSessionLimiterOptions {
  maxPerHost: number;
  /** How long a slot outlives its holder's last heartbeat. Default 15 s. */
  leaseMs?: number;
  /** First wait when every slot is taken; doubles up to maxPollMs. */
  pollMs?: number;
  maxPollMs?: number;
}

export interface PgSessionLimiter extends SessionLimiter {
  /** Slots this process holds right now (for tests and metrics). */
  held(): number;
  /** Stops the heartbeat and frees every slot still held. */
  close(): Promise<void>;
}

/**
 * One statement: pick a slot number that is free or expired and take it. Two workers that pick
 * the same slot serialise on its primary key; the loser's ON CONFLICT … WHERE finds a live lease,
 * returns nothing, and tries again.
 */
const TAKE_SLOT = `
  INSERT INTO mx_session_slots (host, slot, holder, lease_expires_at)
  SELECT $1, s, $3, clock_timestamp() + $4 * interval '1 millisecond'
  FROM generate_series(0, $2::int - 1) AS s
  WHERE NOT EXISTS (SELECT 1 FROM mx_session_slots m WHERE m.host = $1 AND m.slot = s AND m.lease_expires_at >= clock_timestamp())
  ORDER BY random() LIMIT 1
  ON CONFLICT (host, slot) DO UPDATE SET holder = excluded.holder, lease_expires_at = excluded.lease_expires_at
  WHERE mx_session_slots.lease_expires_at < clock_timestamp()
  RETURNING slot`;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export function createPgSessionLimiter(pool: pg.Pool, options: PgSessionLimiterOptions): PgSessionLimiter {
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? 20;
  const maxPollMs = options.maxPollMs ?? 250;
  const holders = new Set<string>();
  let closed = false;

  const heartbeat = setInterval(() => {
    if (holders.size === 0) return;
    pool
      .query("UPDATE mx_session_slots SET lease_expires_at = clock_timestamp() + $2 * interval '1 millisecond' WHERE holder = ANY($1::text[])", [
        [...holders],
        leaseMs,
      ])
      .catch(() => undefined); // a missed beat is survivable: the lease is three beats long
  }, Math.max(100, Math.floor(leaseMs / 3)));
  heartbeat.unref();

  const release = (holder: string) => async (): Promise<void> => {
    if (!holders.delete(holder)) return;
    // If this fails the lease simply runs out.
    await pool.query('DELETE FROM mx_session_slots WHERE holder = $1', [holder]).catch(() => undefined);
  };

  return {
    async acquire(mxHost, signal) {
      let wait = pollMs;
      for (;;) {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
        if (closed) throw new Error('session limiter closed');
        const holder = randomUUID();
        try {
          const taken = await pool.query(TAKE_SLOT, [mxHost, options.maxPerHost, holder, leaseMs]);
          if ((taken.rowCount ?? 0) > 0) {
            holders.add(holder);
            return release(holder);
          }
        } catch {
          // The database is unreachable for a moment: wait and try again rather than probe unbounded.
        }
        // Jitter keeps workers that wait for one host from retrying in lockstep.
        await sleep(wait / 2 + Math.random() * wait, signal);
        wait = Math.min(maxPollMs, wait * 2);
      }
    },
    held: () => holders.size,
    async close() {
      closed = true;
      clearInterval(heartbeat);
      const mine = [...holders];
      holders.clear();
      if (mine.length > 0) await pool.query('DELETE FROM mx_session_slots WHERE holder = ANY($1::text[])', [mine]).catch(() => undefined);
    },
  };
}

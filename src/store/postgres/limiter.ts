/**
 * Role: engine state (MX session slots, PostgreSQL). The SessionLimiter shared by every worker on one PostgreSQL (docs/design.md §1, §5): per MX host
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
import type { Logger } from '../../logger.js';
import { coalesced } from './coalesced.js';

export interface PgSessionLimiterOptions {
  maxPerHost: number;
  /** Hears failed heartbeats and releases (both survivable: leases expire). */
  log: Logger;
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
 * One statement for every slot asked for in the same turn of the event loop (a chunk of a batch
 * warms the sessions of all its domains at once): the k-th request for a host takes the k-th of
 * that host's free or expired slot numbers (in random order). Two workers that pick the same slot
 * serialise on its primary key; the loser's ON CONFLICT … WHERE finds a live lease, gets no row
 * back, and tries again. Rows go in (host, slot) order, so two such statements never deadlock.
 */
const TAKE_SLOTS = `
  WITH req AS (
    SELECT host, holder, row_number() OVER (PARTITION BY host ORDER BY o) AS k
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(host, holder, o)
  ), free AS (
    SELECT h.host, s.slot, row_number() OVER (PARTITION BY h.host ORDER BY random()) AS k
    FROM (SELECT DISTINCT host FROM req) h CROSS JOIN generate_series(0, $3::int - 1) AS s(slot)
    WHERE NOT EXISTS (SELECT 1 FROM mx_session_slots m WHERE m.host = h.host AND m.slot = s.slot AND m.lease_expires_at >= clock_timestamp())
  )
  INSERT INTO mx_session_slots (host, slot, holder, lease_expires_at)
  SELECT req.host, free.slot, req.holder, clock_timestamp() + $4 * interval '1 millisecond'
  FROM req JOIN free ON free.host = req.host AND free.k = req.k
  ORDER BY req.host, free.slot
  ON CONFLICT (host, slot) DO UPDATE SET holder = excluded.holder, lease_expires_at = excluded.lease_expires_at
  WHERE mx_session_slots.lease_expires_at < clock_timestamp()
  RETURNING holder`;

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
      // A missed beat is survivable (the lease is three beats long), but it is heard.
      .catch((err: unknown) => options.log.warn({ err, slots: holders.size }, 'could not renew MX session slots'));
  }, Math.max(100, Math.floor(leaseMs / 3)));
  heartbeat.unref();

  const take = coalesced<{ host: string; holder: string }, boolean>(async (asked) => {
    const taken = await pool.query<{ holder: string }>(TAKE_SLOTS, [asked.map((a) => a.host), asked.map((a) => a.holder), options.maxPerHost, leaseMs]);
    const got = new Set(taken.rows.map((r) => r.holder));
    return asked.map((a) => got.has(a.holder));
  });
  // If a delete fails the slot's lease simply runs out.
  const deleteSlots = (holders: string[]) =>
    pool
      .query('DELETE FROM mx_session_slots WHERE holder = ANY($1::text[])', [holders])
      .then(
        () => undefined,
        (err: unknown) => options.log.warn({ err, slots: holders.length }, 'could not free MX session slots; their leases will expire'),
      );
  const free = coalesced<string, void>(async (gone) => {
    await deleteSlots(gone);
    return gone.map(() => undefined);
  });

  const release = (holder: string) => async (): Promise<void> => {
    if (!holders.delete(holder)) return;
    await free(holder);
  };

  return {
    async acquire(mxHost, signal) {
      let wait = pollMs;
      for (;;) {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
        if (closed) throw new Error('session limiter closed');
        const holder = randomUUID();
        let got = false;
        try {
          got = await take({ host: mxHost, holder });
        } catch (err) {
          // The database is unreachable for a moment: wait and try again rather than probe unbounded.
          options.log.warn({ err, mxHost }, 'could not take an MX session slot; retrying');
        }
        if (got) {
          if (closed || signal?.aborted) {
            // Stopped while the slot was being taken: hand it straight back.
            await free(holder);
            continue;
          }
          holders.add(holder);
          return release(holder);
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
      if (mine.length > 0) await deleteSlots(mine);
    },
  };
}

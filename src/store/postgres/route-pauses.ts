/**
 * Role: engine state (egress route pauses, PostgreSQL). The RoutePauses of every worker on one
 * PostgreSQL (src/core/ports.ts, issue 22): a route that a provider refused through one worker is
 * paused for all of them, and a greylisted address's recheck picks the same route on whichever
 * worker runs it (route-health.ts picks by the kept pauses). A block updates its row under a row
 * lock, so two workers blocked at once make one pause, not two strikes.
 *
 * The table cannot answer (a lost connection, a failover)? The pool keeps probing on what it last
 * read, and a block still pauses the route in this worker: heard as a warning, never a failed probe.
 */
import type pg from 'pg';
import type { RoutePause } from '../../core/egress/route-pause.js';
import type { RoutePauses } from '../../core/ports.js';
import type { Logger } from '../../logger.js';

interface PauseRow {
  route: string;
  scope: string;
  until_ms: string | number;
  strikes: number;
  reason: string;
}

const pauseOf = (row: PauseRow): RoutePause => ({ route: row.route, family: row.scope, until: Number(row.until_ms), strikes: row.strikes, reason: row.reason });

export interface PgRoutePauses extends RoutePauses {
  /** Rows whose pause lapsed a day ago or more: their strikes are stale by then. */
  purgeLapsed(nowMs: number): Promise<void>;
}

export function createPgRoutePauses(pool: pg.Pool, options: { log: Logger }): PgRoutePauses {
  let lastRead: RoutePause[] = [];
  return {
    async list() {
      try {
        const { rows } = await pool.query<PauseRow>('SELECT route, scope, until_ms, strikes, reason FROM egress_route_pauses');
        lastRead = rows.map(pauseOf);
      } catch (err) {
        options.log.warn({ err }, 'could not read the egress route pauses; the pool goes on with the pauses it last read');
      }
      return lastRead;
    },

    async update(route, scope, next) {
      let client: pg.PoolClient | undefined;
      let broken: Error | undefined;
      try {
        client = await pool.connect();
        await client.query('BEGIN');
        // The row exists before it is locked, so two first blocks of a route serialise on it too.
        await client.query("INSERT INTO egress_route_pauses (route, scope, until_ms, strikes, reason) VALUES ($1, $2, 0, 0, '') ON CONFLICT DO NOTHING", [route, scope]);
        const { rows } = await client.query<PauseRow>('SELECT route, scope, until_ms, strikes, reason FROM egress_route_pauses WHERE route = $1 AND scope = $2 FOR UPDATE', [route, scope]);
        const row = rows[0];
        const kept = next(row && row.strikes > 0 ? pauseOf(row) : null);
        await client.query('UPDATE egress_route_pauses SET until_ms = $3, strikes = $4, reason = $5 WHERE route = $1 AND scope = $2', [route, scope, kept.until, kept.strikes, kept.reason]);
        await client.query('COMMIT');
        return kept;
      } catch (err) {
        await client?.query('ROLLBACK').catch((rollbackErr: unknown) => {
          broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
        });
        options.log.warn({ err, route, scope }, 'could not keep an egress route pause; this worker pauses the route on its own');
        return next(null);
      } finally {
        client?.release(broken); // a connection that cannot roll back is closed, not reused
      }
    },

    async forgetLapsed(route, scope, nowMs) {
      try {
        await pool.query('DELETE FROM egress_route_pauses WHERE route = $1 AND scope = $2 AND until_ms <= $3', [route, scope, nowMs]);
      } catch (err) {
        options.log.warn({ err, route, scope }, 'could not forget a lapsed egress route pause; its strikes stay until the next ordinary answer');
      }
    },

    async purgeLapsed(nowMs) {
      await pool.query('DELETE FROM egress_route_pauses WHERE until_ms < $1', [nowMs - 86_400_000]);
    },
  };
}

/**
 * Role: failed sign-ins per scope over a sliding window, in the store so the limit holds summed
 * over every API node. An attempt is reserved before its password is hashed, and the count and
 * the reservation are one transaction serialised per scope (issue 21: 39 wrong passwords sent at
 * once were all checked against a limit of 5 when the count came before the hash and the record
 * after it). Each scope's `login_scopes` row is made if missing and locked until the commit
 * (PostgreSQL; SQLite has one writer), in scope order so two attempts never deadlock — as the
 * token buckets are (src/store/postgres/rate-limits.ts).
 */
import { randomUUID } from 'node:crypto';
import { list, Rollback } from '../sql.js';
import type { Db } from '../sql.js';

/** Failed sign-ins counted per scope (an email, a client address) over a sliding window, shared by every node. */
export interface LoginThrottleRole {
  /**
   * Reserves one sign-in attempt against every scope's limit in one step: null, and nothing
   * recorded, when a scope already has `limit` failures or reserved attempts after `since`; else
   * the attempt's id. The reservation counts as a failure until it is released, so attempts fired
   * at once on any number of nodes never check more passwords than the limit.
   */
  reserve(limits: readonly { scope: string; limit: number }[], now: Date, since: Date): Promise<string | null>;
  /** Withdraws a reserved attempt: its password was never checked (the hashing queue was full), or it was right. */
  release(attempt: string): Promise<void>;
  /** A successful sign-in clears its email's failures. */
  clear(scope: string): Promise<void>;
}

export function loginThrottleRole(db: Db): LoginThrottleRole {
  return {
    reserve: (limits, now, since) =>
      db.write<string | null>(async (tx) => {
        const scopes = [...new Set(limits.map((l) => l.scope))].sort();
        for (const scope of scopes) {
          await tx.run('INSERT INTO login_scopes (scope) VALUES (?) ON CONFLICT (scope) DO NOTHING', [scope]);
          await tx.get(`SELECT scope FROM login_scopes WHERE scope = ?${tx.dialect.forUpdate()}`, [scope]);
        }
        const rows = await tx.all<{ scope: string; n: number }>(
          `SELECT scope, COUNT(*) AS n FROM login_failures WHERE scope ${tx.dialect.inList} AND failed_at > ? GROUP BY scope`,
          [list(scopes), since],
        );
        const counted = new Map(rows.map((r) => [r.scope, Number(r.n)]));
        if (limits.some((l) => (counted.get(l.scope) ?? 0) >= l.limit)) return new Rollback(null);
        await tx.run(`DELETE FROM login_failures WHERE scope ${tx.dialect.inList} AND failed_at <= ?`, [list(scopes), since]);
        const attempt = randomUUID();
        for (const scope of scopes) await tx.run('INSERT INTO login_failures (scope, failed_at, attempt) VALUES (?, ?, ?)', [scope, now, attempt]);
        return attempt;
      }),

    async release(attempt) {
      await db.run('DELETE FROM login_failures WHERE attempt = ?', [attempt]);
    },

    async clear(scope) {
      await db.run('DELETE FROM login_failures WHERE scope = ?', [scope]);
    },
  };
}

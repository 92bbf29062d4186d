/** Role: failed sign-ins per scope over a sliding window, in the store so the limit holds summed over every API node. */
import type { LoginThrottleRole } from '../backend.js';
import { list } from '../sql.js';
import type { Db } from '../sql.js';

export function loginThrottleRole(db: Db): LoginThrottleRole {
  return {
    async failures(scopes, since) {
      const rows = await db.all<{ scope: string; n: number }>(
        `SELECT scope, COUNT(*) AS n FROM login_failures WHERE scope ${db.dialect.inList} AND failed_at > ? GROUP BY scope`,
        [list(scopes), since],
      );
      return new Map(rows.map((r) => [r.scope, Number(r.n)]));
    },

    recordFailure: (scopes, now, forgetBefore) =>
      db.write(async (tx) => {
        await tx.run(`DELETE FROM login_failures WHERE scope ${tx.dialect.inList} AND failed_at <= ?`, [list(scopes), forgetBefore]);
        for (const scope of scopes) await tx.run('INSERT INTO login_failures (scope, failed_at) VALUES (?, ?)', [scope, now]);
      }),

    async clear(scope) {
      await db.run('DELETE FROM login_failures WHERE scope = ?', [scope]);
    },
  };
}

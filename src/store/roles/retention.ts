/** Role: retention (DESIGN.md §4): requests past their retention, old finished checks and expired idempotency records are deleted. */
import type { RetentionRole } from '../backend.js';
import { addDays } from '../billing-rules.js';
import type { Db } from '../sql.js';

/** `purgeEngineState`: the dialect's shared engine state past its expiry (nothing on SQLite, whose state is in memory). */
export function retentionRole(db: Db, purgeEngineState: () => Promise<void>): RetentionRole {
  return {
    async purgeExpired(now, verificationRetentionDays) {
      const outcome = await db.write(async (tx) => ({
        requests: await tx.run('DELETE FROM requests WHERE retention_expires_at IS NOT NULL AND retention_expires_at <= ?', [now]),
        verifications: await tx.run("DELETE FROM verifications WHERE state <> 'running' AND finished_at <= ?", [addDays(now, -verificationRetentionDays)]),
        idempotencyRecords: await tx.run('DELETE FROM idempotency_records WHERE expires_at <= ?', [now]),
      }));
      await purgeEngineState();
      return outcome;
    },
  };
}

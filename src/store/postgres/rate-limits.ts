/**
 * Role: rate limits (PostgreSQL). Rate limits on PostgreSQL: one token-bucket row per key, shared by every API node. The row is
 * created full, then locked while it is refilled and one token taken, so concurrent requests on
 * two nodes queue on the row and never spend the same token twice. The refill clock never runs
 * backwards, even when nodes' clocks disagree slightly.
 */
import type { RateLimitsRole } from '../roles/rate-limits.js';
import type { Db } from '../sql.js';
import { takeToken } from '../../core/token-bucket.js';

export function tableRateLimits(db: Db): RateLimitsRole {
  return {
    consumeToken: (input) =>
      db.write(async (tx) => {
        const nowMs = input.now.getTime();
        await tx.run('INSERT INTO rate_buckets (key_id, tokens, updated_ms) VALUES (?, ?, ?) ON CONFLICT (key_id) DO NOTHING', [input.keyId, input.burst, nowMs]);
        const row = (await tx.get<{ tokens: number; updated_ms: number }>('SELECT tokens, updated_ms FROM rate_buckets WHERE key_id = ? FOR UPDATE', [input.keyId])) as {
          tokens: number;
          updated_ms: number;
        };
        const { state, decision } = takeToken({ tokens: row.tokens, updatedMs: row.updated_ms }, nowMs, input.perSecond, input.burst);
        await tx.run('UPDATE rate_buckets SET tokens = ?, updated_ms = ? WHERE key_id = ?', [state.tokens, Math.max(nowMs, row.updated_ms), input.keyId]);
        return decision;
      }),
  };
}

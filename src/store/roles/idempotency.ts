/**
 * Roles: verifications, batches (Idempotency-Key claims). Idempotency-Key claims (docs/design.md §4), taken inside the transaction of the use case they
 * guard (start a check, create a batch). One upsert claims a free key or takes over an expired
 * record; a live record is read back and either replayed (same body) or refused (different
 * body). On PostgreSQL the upsert waits for a concurrent claim of the same key to commit or roll
 * back, so of two identical racing requests exactly one creates and the other replays it.
 */
import type { Db, Tx } from '../sql.js';

/** Scope of an Idempotency-Key (docs/design.md §4): account + route + key, plus the body hash. */
export interface IdempotencyClaim {
  route: string;
  key: string;
  bodyHash: string;
  /** After this instant the record is forgotten (24 h after first use). */
  expiresAt: string;
}

export type IdempotencySeen = { kind: 'claimed' } | { kind: 'same'; targetId: string } | { kind: 'different' };

/** Claims `claim` for `targetId`. The caller must roll back if it does not go on to create. */
export async function claimIdempotency(tx: Tx, accountId: string, claim: IdempotencyClaim, targetId: string, now: Date): Promise<IdempotencySeen> {
  const claimed = await tx.run(
    `INSERT INTO idempotency_records (account_id, route, key, body_hash, target_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (account_id, route, key) DO UPDATE SET body_hash = excluded.body_hash, target_id = excluded.target_id,
       created_at = excluded.created_at, expires_at = excluded.expires_at
     WHERE idempotency_records.expires_at <= ?`,
    [accountId, claim.route, claim.key, claim.bodyHash, targetId, now, claim.expiresAt, now],
  );
  if (claimed === 1) return { kind: 'claimed' };
  const row = await tx.get<{ body_hash: string; target_id: string }>(
    `SELECT body_hash, target_id FROM idempotency_records WHERE account_id = ? AND route = ? AND key = ?${tx.dialect.forUpdate()}`,
    [accountId, claim.route, claim.key],
  );
  if (!row) throw new Error('idempotency record vanished while locked');
  return row.body_hash === claim.bodyHash ? { kind: 'same', targetId: row.target_id } : { kind: 'different' };
}

/** Points a live record at a new target: its old target was purged. */
export async function retargetIdempotency(tx: Tx, accountId: string, claim: IdempotencyClaim, targetId: string, now: Date): Promise<void> {
  await tx.run('UPDATE idempotency_records SET target_id = ?, created_at = ?, expires_at = ? WHERE account_id = ? AND route = ? AND key = ?', [
    targetId,
    now,
    claim.expiresAt,
    accountId,
    claim.route,
    claim.key,
  ]);
}

/** What a live claim of `claim`'s key says without taking it: its target (same body), `different`, or null (no live record). */
export async function peekIdempotency(
  db: Pick<Db, 'get'>,
  accountId: string,
  claim: IdempotencyClaim,
  now: Date,
): Promise<{ kind: 'same'; targetId: string } | { kind: 'different' } | null> {
  const row = await db.get<{ body_hash: string; target_id: string }>(
    'SELECT body_hash, target_id FROM idempotency_records WHERE account_id = ? AND route = ? AND key = ? AND expires_at > ?',
    [accountId, claim.route, claim.key, now],
  );
  if (!row) return null;
  return row.body_hash === claim.bodyHash ? { kind: 'same', targetId: row.target_id } : { kind: 'different' };
}

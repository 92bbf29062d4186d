/** Single verifications (`POST /v1/verify`) on PostgreSQL: hold → debit/release, idempotent replay. */
import { timeOrderedId } from '../time-ordered-id.js';
import { Rollback } from './database.js';
import type { PgDatabase, Tx } from './database.js';
import { claimIdempotency, history, hold, ledger, retargetIdempotency, saveHistory } from './ledger.js';
import { finalizeStoredResult, nextHistory, settle } from '../billing-rules.js';
import type { StartVerificationInput, StartVerificationOutcome, StoredResult, VerificationRecord } from '../store.js';
import { toVerificationRecord } from '../rows.js';
import type { VerificationRow } from '../rows.js';


async function load(tx: Pick<Tx, 'one'>, id: string, lock = false): Promise<VerificationRow | undefined> {
  return tx.one<VerificationRow>(`SELECT * FROM verifications WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
}

export function startVerification(db: PgDatabase, input: StartVerificationInput): Promise<StartVerificationOutcome> {
  return db.tx<StartVerificationOutcome>(async (tx) => {
    const id = timeOrderedId(input.now.getTime());
    const seen = await claimIdempotency(tx, input.accountId, input.idempotency, id, input.now);
    if (seen.kind === 'different') return new Rollback({ kind: 'idempotency_mismatch' });
    if (seen.kind === 'same') {
      const row = await load(tx, seen.targetId);
      if (row) return new Rollback({ kind: 'replay', verification: toVerificationRecord(row) });
      await retargetIdempotency(tx, input.accountId, input.idempotency, id, input.now);
    }
    if (input.billable) {
      const short = await hold(tx, input.accountId, 1, { verificationId: id }, input.now);
      if (short !== null) return new Rollback({ kind: 'insufficient_credits', available: short });
    }
    const row = await tx.one<VerificationRow>(
      `INSERT INTO verifications (id, account_id, key_id, email, state, billable, billing, created_at, lease_expires_at)
       VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8) RETURNING *`,
      [id, input.accountId, input.keyId, input.email, input.billable, input.billable ? 'held' : 'none', input.now, input.leaseExpiresAt],
    );
    const created = row as VerificationRow;
    return { kind: 'created', verification: input.result ? await complete(tx, created, input.result, input.now) : toVerificationRecord(created) };
  });
}

export function completeVerification(db: PgDatabase, input: { verificationId: string; result: StoredResult; now: Date }): Promise<VerificationRecord> {
  return db.tx(async (tx) => {
    const row = await load(tx, input.verificationId, true);
    if (!row) throw new Error(`verification ${input.verificationId} does not exist`);
    return complete(tx, row, input.result, input.now);
  });
}

/** Settles a running check (its row locked or just created) with its result: debit or release, history, stored result. */
async function complete(tx: Tx, row: VerificationRow, result: StoredResult, now: Date): Promise<VerificationRecord> {
  if (row.state !== 'running') return toVerificationRecord(row);
  const held = row.billing === 'held';
  const settled = settle(result.envelope, held);
  // Same lock order as batch results: the address history row before the account row.
  const previous = await history(tx, row.account_id, row.email);
  const stored = finalizeStoredResult(result, settled.envelope, previous);
  if (held) await ledger(tx, row.account_id, settled.billing === 'debited' ? 'debit' : 'release', 1, { verificationId: row.id }, now);
  await saveHistory(tx, row.account_id, row.email, nextHistory(previous, stored));
  const updated = await tx.one<VerificationRow>(
    "UPDATE verifications SET state = 'completed', billing = $2, result_json = $3, finished_at = $4 WHERE id = $1 RETURNING *",
    [row.id, settled.billing, JSON.stringify(stored), now],
  );
  return toVerificationRecord(updated as VerificationRow);
}

async function failLocked(tx: Tx, row: VerificationRow, now: Date): Promise<VerificationRecord> {
  if (row.state !== 'running') return toVerificationRecord(row);
  if (row.billing === 'held') await ledger(tx, row.account_id, 'release', 1, { verificationId: row.id }, now);
  const updated = await tx.one<VerificationRow>("UPDATE verifications SET state = 'failed', billing = $2, finished_at = $3 WHERE id = $1 RETURNING *", [
    row.id,
    row.billing === 'held' ? 'released' : row.billing,
    now,
  ]);
  return toVerificationRecord(updated as VerificationRow);
}

export function failVerification(db: PgDatabase, input: { verificationId: string; now: Date }): Promise<VerificationRecord> {
  return db.tx(async (tx) => {
    const row = await load(tx, input.verificationId, true);
    if (!row) throw new Error(`verification ${input.verificationId} does not exist`);
    return failLocked(tx, row, input.now);
  });
}

export async function getVerification(db: PgDatabase, accountId: string, id: string): Promise<VerificationRecord | null> {
  const row = await load(db, id);
  return row && row.account_id === accountId ? toVerificationRecord(row) : null;
}

/** Rows another node is finishing right now are skipped (SKIP LOCKED), never failed under it. */
export function failStaleVerifications(db: PgDatabase, olderThan: Date, now: Date): Promise<number> {
  return db.tx(async (tx) => {
    const stale = await tx.q<VerificationRow>("SELECT * FROM verifications WHERE state = 'running' AND created_at < $1 FOR UPDATE SKIP LOCKED", [olderThan]);
    for (const row of stale) await failLocked(tx, row, now);
    return stale.length;
  });
}

export async function renewVerificationLeases(db: PgDatabase, ids: readonly string[], until: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.q("UPDATE verifications SET lease_expires_at = $2 WHERE id = ANY($1::text[]) AND state = 'running'", [ids, until]);
}

export async function claimAbandonedVerifications(db: PgDatabase, input: { now: Date; leaseExpiresAt: Date; limit: number }): Promise<VerificationRecord[]> {
  // SKIP LOCKED: two nodes sweeping at once take disjoint checks.
  const rows = await db.q<VerificationRow>(
    `UPDATE verifications SET lease_expires_at = $1 WHERE id IN (
       SELECT id FROM verifications WHERE state = 'running' AND lease_expires_at < $2 ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED
     ) RETURNING *`,
    [input.leaseExpiresAt, input.now, input.limit],
  );
  return rows.sort((a, b) => a.created_at.localeCompare(b.created_at)).map(toVerificationRecord);
}

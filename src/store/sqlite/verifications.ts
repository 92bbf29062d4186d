/** Single verifications (`POST /v1/verify`) on SQLite: hold → debit/release, idempotent replay. */
import { timeOrderedId } from '../time-ordered-id.js';
import type { SqliteContext } from './context.js';
import { finalizeStoredResult, nextHistory, settle } from '../billing-rules.js';
import type { StartVerificationInput, StartVerificationOutcome, StoredResult, VerificationRecord } from '../store.js';
import { toVerificationRecord } from '../rows.js';
import type { VerificationRow } from '../rows.js';

function load(ctx: SqliteContext, id: string): VerificationRow | undefined {
  return ctx.stmt('SELECT * FROM verifications WHERE id = ?').get(id) as VerificationRow | undefined;
}

export function startVerification(ctx: SqliteContext, input: StartVerificationInput): StartVerificationOutcome {
  return ctx.write(() => {
    const seen = ctx.checkIdempotency(input.accountId, input.idempotency, input.now);
    if (seen.kind === 'different') return { kind: 'idempotency_mismatch' };
    if (seen.kind === 'same') {
      const row = load(ctx, seen.targetId);
      if (row) return { kind: 'replay', verification: toVerificationRecord(row) };
    }
    if (input.billable) {
      const available = ctx.available(input.accountId);
      if (available < 1) return { kind: 'insufficient_credits', available };
    }
    const id = timeOrderedId(input.now.getTime());
    const now = input.now.toISOString();
    if (input.billable) ctx.ledger(input.accountId, 'hold', 1, { verificationId: id }, input.now);
    ctx.rememberIdempotency(input.accountId, input.idempotency, id, input.now);
    const record: VerificationRecord = { id, accountId: input.accountId, email: input.email, state: 'running', billable: input.billable, createdAt: now, result: null };
    if (!input.result) {
      ctx
        .stmt(
          `INSERT INTO verifications (id, account_id, key_id, email, state, billable, billing, created_at, lease_expires_at)
           VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
        )
        .run(id, input.accountId, input.keyId, input.email, input.billable ? 1 : 0, input.billable ? 'held' : 'none', now, input.leaseExpiresAt.toISOString());
      return { kind: 'created', verification: record };
    }
    // Known at once (the sandbox): written completed in one row write.
    const { billing, stored } = settleResult(ctx, record, input.billable, input.result, input.now);
    ctx
      .stmt(
        `INSERT INTO verifications (id, account_id, key_id, email, state, billable, billing, result_json, created_at, finished_at)
         VALUES (?, ?, ?, ?, 'completed', ?, ?, ?, ?, ?)`,
      )
      .run(id, input.accountId, input.keyId, input.email, input.billable ? 1 : 0, billing, JSON.stringify(stored), now, now);
    return { kind: 'created', verification: { ...record, state: 'completed', result: stored } };
  });
}

export function completeVerification(ctx: SqliteContext, input: { verificationId: string; result: StoredResult; now: Date }): VerificationRecord {
  return ctx.write(() => {
    const row = load(ctx, input.verificationId);
    if (!row) throw new Error(`verification ${input.verificationId} does not exist`);
    const record = toVerificationRecord(row);
    if (row.state !== 'running') return record;
    const { billing, stored } = settleResult(ctx, record, row.billing === 'held', input.result, input.now);
    ctx
      .stmt("UPDATE verifications SET state = 'completed', billing = ?, result_json = ?, finished_at = ? WHERE id = ?")
      .run(billing, JSON.stringify(stored), input.now.toISOString(), row.id);
    return { ...record, state: 'completed', result: stored };
  });
}

/** Bills a check's result (debit or release of its held credit) and records it in the address history. */
function settleResult(
  ctx: SqliteContext,
  check: Pick<VerificationRecord, 'id' | 'accountId' | 'email'>,
  held: boolean,
  result: StoredResult,
  now: Date,
): { billing: string; stored: StoredResult } {
  const settled = settle(result.envelope, held);
  const previous = ctx.history(check.accountId, check.email);
  const stored = finalizeStoredResult(result, settled.envelope, previous);
  if (held) ctx.ledger(check.accountId, settled.billing === 'debited' ? 'debit' : 'release', 1, { verificationId: check.id }, now);
  ctx.saveHistory(check.accountId, check.email, nextHistory(previous, stored));
  return { billing: settled.billing, stored };
}

export function failVerification(ctx: SqliteContext, input: { verificationId: string; now: Date }): VerificationRecord {
  return ctx.write(() => {
    const row = load(ctx, input.verificationId);
    if (!row) throw new Error(`verification ${input.verificationId} does not exist`);
    if (row.state !== 'running') return toVerificationRecord(row);
    if (row.billing === 'held') ctx.ledger(row.account_id, 'release', 1, { verificationId: row.id }, input.now);
    ctx.stmt("UPDATE verifications SET state = 'failed', billing = ?, finished_at = ? WHERE id = ?").run(
      row.billing === 'held' ? 'released' : row.billing,
      input.now.toISOString(),
      row.id,
    );
    return toVerificationRecord(load(ctx, row.id) as VerificationRow);
  });
}

export function getVerification(ctx: SqliteContext, accountId: string, id: string): VerificationRecord | null {
  const row = load(ctx, id);
  return row && row.account_id === accountId ? toVerificationRecord(row) : null;
}

export function failStaleVerifications(ctx: SqliteContext, olderThan: Date, now: Date): number {
  const stale = ctx.stmt("SELECT id FROM verifications WHERE state = 'running' AND created_at < ?").all(olderThan.toISOString()) as Array<{ id: string }>;
  for (const { id } of stale) failVerification(ctx, { verificationId: id, now });
  return stale.length;
}

export function renewVerificationLeases(ctx: SqliteContext, ids: readonly string[], until: Date): void {
  const renew = ctx.stmt("UPDATE verifications SET lease_expires_at = ? WHERE id = ? AND state = 'running'");
  for (const id of ids) renew.run(until.toISOString(), id);
}

export function claimAbandonedVerifications(ctx: SqliteContext, input: { now: Date; leaseExpiresAt: Date; limit: number }): VerificationRecord[] {
  return ctx.write(() =>
    (
      ctx
        .stmt(
          `UPDATE verifications SET lease_expires_at = ? WHERE id IN (
             SELECT id FROM verifications WHERE state = 'running' AND lease_expires_at < ? ORDER BY created_at LIMIT ?
           ) RETURNING *`,
        )
        .all(input.leaseExpiresAt.toISOString(), input.now.toISOString(), input.limit) as VerificationRow[]
    )
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .map(toVerificationRecord),
  );
}

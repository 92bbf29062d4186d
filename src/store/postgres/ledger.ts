/**
 * Statements shared by the PostgreSQL store modules, each run inside the caller's transaction:
 * the credit ledger, Idempotency-Key claims and address history.
 */
import type { Tx } from './database.js';
import type { AddressHistory, PublicVerdict } from '../../core/types.js';
import type { IdempotencyClaim } from '../store.js';

type LedgerKind = 'grant' | 'hold' | 'debit' | 'release';
interface LedgerRef {
  requestId?: string;
  verificationId?: string;
}

const TOTALS: Record<Exclude<LedgerKind, 'hold'>, string> = {
  grant: 'UPDATE accounts SET credits_granted = credits_granted + $1 WHERE id = $2',
  debit: 'UPDATE accounts SET credits_held = credits_held - $1, credits_debited = credits_debited + $1 WHERE id = $2',
  release: 'UPDATE accounts SET credits_held = credits_held - $1 WHERE id = $2',
};

async function appendLedger(tx: Tx, accountId: string, kind: LedgerKind, credits: number, ref: LedgerRef, now: Date): Promise<void> {
  await tx.q('INSERT INTO credit_ledger (account_id, kind, credits, request_id, verification_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    accountId,
    kind,
    credits,
    ref.requestId ?? null,
    ref.verificationId ?? null,
    now,
  ]);
}

/** Grant, debit or release: appends the ledger row and moves the account's totals with it. */
export async function ledger(tx: Tx, accountId: string, kind: Exclude<LedgerKind, 'hold'>, credits: number, ref: LedgerRef, now: Date): Promise<void> {
  if (credits === 0) return;
  await appendLedger(tx, accountId, kind, credits, ref, now);
  await tx.q(TOTALS[kind], [credits, accountId]);
}

/**
 * Holds `credits` only if that many are available, in one conditional UPDATE: the row lock
 * makes concurrent holds on two API nodes queue up, and the second sees the first's hold.
 * Returns null when held, else the balance that was available.
 */
export async function hold(tx: Tx, accountId: string, credits: number, ref: LedgerRef, now: Date): Promise<number | null> {
  if (credits === 0) return null;
  const held = await tx.count(
    'UPDATE accounts SET credits_held = credits_held + $1 WHERE id = $2 AND credits_granted - credits_debited - credits_held >= $1',
    [credits, accountId],
  );
  if (held === 0) return available(tx, accountId);
  await appendLedger(tx, accountId, 'hold', credits, ref, now);
  return null;
}

export async function available(tx: Tx, accountId: string): Promise<number> {
  const row = await tx.one<{ available: number }>('SELECT credits_granted - credits_debited - credits_held AS available FROM accounts WHERE id = $1', [
    accountId,
  ]);
  return row?.available ?? 0;
}

export type IdempotencySeen = { kind: 'claimed' } | { kind: 'same'; targetId: string } | { kind: 'different' };

/**
 * Claims an Idempotency-Key for `targetId`. INSERT … ON CONFLICT DO NOTHING waits for a
 * concurrent claim of the same key to commit or roll back, so of two identical racing requests
 * exactly one creates; the other then reads the winner's record and replays it. A claim whose
 * target was purged is taken over. The caller must roll back if it does not go on to create.
 */
export async function claimIdempotency(tx: Tx, accountId: string, claim: IdempotencyClaim, targetId: string, now: Date): Promise<IdempotencySeen> {
  await tx.q('DELETE FROM idempotency_records WHERE account_id = $1 AND route = $2 AND key = $3 AND expires_at <= $4', [
    accountId,
    claim.route,
    claim.key,
    now,
  ]);
  const inserted = await tx.count(
    `INSERT INTO idempotency_records (account_id, route, key, body_hash, target_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (account_id, route, key) DO NOTHING`,
    [accountId, claim.route, claim.key, claim.bodyHash, targetId, now, claim.expiresAt],
  );
  if (inserted === 1) return { kind: 'claimed' };
  const row = await tx.one<{ body_hash: string; target_id: string }>(
    'SELECT body_hash, target_id FROM idempotency_records WHERE account_id = $1 AND route = $2 AND key = $3 FOR UPDATE',
    [accountId, claim.route, claim.key],
  );
  if (!row) return claimIdempotency(tx, accountId, claim, targetId, now);
  return row.body_hash === claim.bodyHash ? { kind: 'same', targetId: row.target_id } : { kind: 'different' };
}

/** Points an existing record at a new target (its old target was purged). */
export async function retargetIdempotency(tx: Tx, accountId: string, claim: IdempotencyClaim, targetId: string, now: Date): Promise<void> {
  await tx.q('UPDATE idempotency_records SET target_id = $4, created_at = $5, expires_at = $6 WHERE account_id = $1 AND route = $2 AND key = $3', [
    accountId,
    claim.route,
    claim.key,
    targetId,
    now,
    claim.expiresAt,
  ]);
}

export async function history(tx: Tx, accountId: string, email: string): Promise<AddressHistory | null> {
  const row = await tx.one<{ checks: number; first_checked_at: string; last_checked_at: string; last_verdict: string | null }>(
    'SELECT checks, first_checked_at, last_checked_at, last_verdict FROM address_history WHERE account_id = $1 AND email = $2 FOR UPDATE',
    [accountId, email],
  );
  if (!row) return null;
  return { checks: row.checks, firstCheckedAt: row.first_checked_at, lastCheckedAt: row.last_checked_at, lastVerdict: row.last_verdict as PublicVerdict | null };
}

export async function saveHistory(tx: Tx, accountId: string, email: string, h: AddressHistory): Promise<void> {
  await tx.q(
    `INSERT INTO address_history (account_id, email, checks, first_checked_at, last_checked_at, last_verdict) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, email) DO UPDATE SET checks = address_history.checks + 1, last_checked_at = excluded.last_checked_at, last_verdict = excluded.last_verdict`,
    [accountId, email, h.checks, h.firstCheckedAt, h.lastCheckedAt, h.lastVerdict],
  );
}

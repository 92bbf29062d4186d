/**
 * Role: credits ledger (docs/design.md §3). An append-only `credit_ledger`, and running totals on the
 * account row moved in the same transaction: balance = granted − debited − held. The in-
 * transaction steps (`hold`, `moveCredits`) are what every use case that bills calls; nothing
 * else writes credits.
 */
import type { Db, Tx } from '../sql.js';
import type { BulkWrites } from './dialect-parts.js';

/** The credit ledger outside the use cases that hold, debit and release (those are in their own transactions). */
export interface LedgerRole {
  grantCredits(accountId: string, credits: number, now: Date): Promise<CreditBalance>;
  getBalance(accountId: string): Promise<CreditBalance>;
}

export interface CreditBalance {
  granted: number;
  debited: number;
  /** Credits currently held by unfinished batch items and running verifications. */
  held: number;
  /** granted − debited − held */
  available: number;
}

export interface LedgerEntry {
  accountId: string;
  kind: 'grant' | 'debit' | 'release';
  credits: number;
  requestId?: string | null;
  verificationId?: string | null;
  at: Date;
}

/** How each kind moves the account's totals. */
const MOVES: Record<LedgerEntry['kind'], { granted: number; held: number; debited: number }> = {
  grant: { granted: 1, held: 0, debited: 0 },
  debit: { granted: 0, held: -1, debited: 1 },
  release: { granted: 0, held: -1, debited: 0 },
};

/** Appends grant, debit and release rows and moves each account's totals with them (accounts in id order: no deadlock between two such writes). */
export async function moveCredits(tx: Tx, bulk: BulkWrites, entries: readonly LedgerEntry[]): Promise<void> {
  const rows = entries.filter((e) => e.credits > 0);
  if (rows.length === 0) return;
  await bulk.insertLedgerRows(tx, rows);
  const totals = new Map<string, { granted: number; held: number; debited: number }>();
  for (const e of rows) {
    const t = totals.get(e.accountId) ?? { granted: 0, held: 0, debited: 0 };
    const move = MOVES[e.kind];
    t.granted += move.granted * e.credits;
    t.held += move.held * e.credits;
    t.debited += move.debited * e.credits;
    totals.set(e.accountId, t);
  }
  for (const [accountId, t] of [...totals].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await tx.run('UPDATE accounts SET credits_granted = credits_granted + ?, credits_held = credits_held + ?, credits_debited = credits_debited + ? WHERE id = ?', [
      t.granted,
      t.held,
      t.debited,
      accountId,
    ]);
  }
}

/**
 * Holds `credits` only if that many are available, in one conditional UPDATE: on PostgreSQL
 * the row lock makes concurrent holds on two API nodes queue up, and the second sees the first's
 * hold. Returns null when held, else the balance that was available.
 */
export async function hold(tx: Tx, bulk: BulkWrites, accountId: string, credits: number, ref: { requestId?: string; verificationId?: string }, at: Date): Promise<number | null> {
  if (credits === 0) return null;
  const held = await tx.run('UPDATE accounts SET credits_held = credits_held + ? WHERE id = ? AND credits_granted - credits_debited - credits_held >= ?', [
    credits,
    accountId,
    credits,
  ]);
  if (held === 0) return available(tx, accountId);
  await bulk.insertLedgerRows(tx, [{ accountId, kind: 'hold', credits, requestId: ref.requestId ?? null, verificationId: ref.verificationId ?? null, at }]);
  return null;
}

export async function available(tx: Tx, accountId: string): Promise<number> {
  const row = await tx.get<{ available: number }>('SELECT credits_granted - credits_debited - credits_held AS available FROM accounts WHERE id = ?', [accountId]);
  return row?.available ?? 0;
}

async function balance(tx: Tx, accountId: string): Promise<CreditBalance> {
  const row = await tx.get<{ credits_granted: number; credits_debited: number; credits_held: number }>(
    'SELECT credits_granted, credits_debited, credits_held FROM accounts WHERE id = ?',
    [accountId],
  );
  if (!row) return { granted: 0, debited: 0, held: 0, available: 0 };
  return {
    granted: row.credits_granted,
    debited: row.credits_debited,
    held: row.credits_held,
    available: row.credits_granted - row.credits_debited - row.credits_held,
  };
}

export function ledgerRole(db: Db, bulk: BulkWrites): LedgerRole {
  return {
    grantCredits: (accountId, credits, now) =>
      db.write(async (tx) => {
        await moveCredits(tx, bulk, [{ accountId, kind: 'grant', credits, at: now }]);
        return balance(tx, accountId);
      }),
    getBalance: (accountId) => balance(db, accountId),
  };
}

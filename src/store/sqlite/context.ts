/** The shared handle of the SQLite store modules: the connection and a prepared-statement cache. */
import type Database from 'better-sqlite3';
import type { SqliteDb } from './database.js';
import type { AddressHistory, PublicVerdict } from '../../core/types.js';
import type { IdempotencyClaim } from '../store.js';

export class SqliteContext {
  private readonly statements = new Map<string, Database.Statement>();
  constructor(readonly db: SqliteDb) {}

  stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /**
   * A write transaction taken with BEGIN IMMEDIATE, so two processes never deadlock on upgrade.
   * Inside a transaction already (an operation of the group commit, which has its own
   * savepoint), `fn` simply runs in it: a second savepoint would only add two statements.
   */
  write<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    return this.db.transaction(fn).immediate();
  }

  private pending: Array<{ fn: () => unknown; resolve: (value: unknown) => void; reject: (err: unknown) => void }> = [];
  private flushScheduled = false;

  /**
   * Group commit: write operations issued in the same turn of the event loop share one
   * transaction, each inside its own savepoint (better-sqlite3 nests transactions that way), so
   * one operation's failure rolls back only itself. A commit costs far more than the statements
   * of one API call (BENCHMARKS.md §3); sharing it lets concurrent requests and a worker's
   * stream of results pay it once. Callers are answered only after the commit.
   */
  grouped<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Runs and commits every queued write now (also called before the connection closes). */
  flush(): void {
    this.flushScheduled = false;
    const ops = this.pending;
    this.pending = [];
    if (ops.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const op of ops) {
            try {
              outcomes.push({ ok: true, value: this.db.transaction(op.fn)() });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      for (const op of ops) op.reject(error); // the commit itself failed: nothing was written
      return;
    }
    ops.forEach((op, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) op.resolve(outcome.value);
      else op.reject(outcome?.error);
    });
  }

  read<T>(fn: () => T): T {
    return this.db.transaction(fn).deferred();
  }

  /** Appends a ledger row and moves the account's running totals with it. */
  ledger(accountId: string, kind: 'grant' | 'hold' | 'debit' | 'release', credits: number, ref: { requestId?: string; verificationId?: string }, now: Date): void {
    if (credits === 0) return;
    this.stmt(
      'INSERT INTO credit_ledger (account_id, kind, credits, request_id, verification_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(accountId, kind, credits, ref.requestId ?? null, ref.verificationId ?? null, now.toISOString());
    const update = {
      grant: 'UPDATE accounts SET credits_granted = credits_granted + @n WHERE id = @id',
      hold: 'UPDATE accounts SET credits_held = credits_held + @n WHERE id = @id',
      debit: 'UPDATE accounts SET credits_held = credits_held - @n, credits_debited = credits_debited + @n WHERE id = @id',
      release: 'UPDATE accounts SET credits_held = credits_held - @n WHERE id = @id',
    }[kind];
    this.stmt(update).run({ n: credits, id: accountId });
  }

  available(accountId: string): number {
    const row = this.stmt('SELECT credits_granted - credits_debited - credits_held AS available FROM accounts WHERE id = ?').get(accountId) as
      | { available: number }
      | undefined;
    return row?.available ?? 0;
  }

  /**
   * Looks up an Idempotency-Key record, ignoring it once expired. 'free' means the caller
   * may create the operation and must call `rememberIdempotency` in the same transaction.
   */
  checkIdempotency(accountId: string, claim: IdempotencyClaim, now: Date): { kind: 'free' } | { kind: 'same'; targetId: string } | { kind: 'different' } {
    const row = this.stmt('SELECT body_hash, target_id, expires_at FROM idempotency_records WHERE account_id = ? AND route = ? AND key = ?').get(
      accountId,
      claim.route,
      claim.key,
    ) as { body_hash: string; target_id: string; expires_at: string } | undefined;
    // An expired record counts as absent; `rememberIdempotency` replaces it (the purge removes the rest).
    if (!row || row.expires_at <= now.toISOString()) return { kind: 'free' };
    return row.body_hash === claim.bodyHash ? { kind: 'same', targetId: row.target_id } : { kind: 'different' };
  }

  rememberIdempotency(accountId: string, claim: IdempotencyClaim, targetId: string, now: Date): void {
    this.stmt(
      'INSERT OR REPLACE INTO idempotency_records (account_id, route, key, body_hash, target_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(accountId, claim.route, claim.key, claim.bodyHash, targetId, now.toISOString(), claim.expiresAt);
  }

  history(accountId: string, email: string): AddressHistory | null {
    const row = this.stmt('SELECT checks, first_checked_at, last_checked_at, last_verdict FROM address_history WHERE account_id = ? AND email = ?').get(
      accountId,
      email,
    ) as { checks: number; first_checked_at: string; last_checked_at: string; last_verdict: string | null } | undefined;
    if (!row) return null;
    return {
      checks: row.checks,
      firstCheckedAt: row.first_checked_at,
      lastCheckedAt: row.last_checked_at,
      lastVerdict: row.last_verdict as PublicVerdict | null,
    };
  }

  saveHistory(accountId: string, email: string, h: AddressHistory): void {
    this.stmt(
      `INSERT INTO address_history (account_id, email, checks, first_checked_at, last_checked_at, last_verdict) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, email) DO UPDATE SET checks = excluded.checks, last_checked_at = excluded.last_checked_at, last_verdict = excluded.last_verdict`,
    ).run(accountId, email, h.checks, h.firstCheckedAt, h.lastCheckedAt, h.lastVerdict);
  }
}

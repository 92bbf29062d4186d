/**
 * What each dialect writes its own way, behind the shared transaction scripts: the claim query
 * (src/store/{sqlite,postgres}/claim.ts) and the bulk writes (…/bulk-writes.ts), where
 * PostgreSQL sends one statement over arrays and SQLite runs a cached statement per row. Each
 * function runs inside the caller's transaction and decides nothing: the scripts decide.
 */
import type { PublicVerdict } from '../../core/types.js';
import type { Awaitable, Tx } from '../sql.js';
import type { DialectClaim } from './work-queue.js';
import type { ItemBilling } from '../billing-rules.js';

/** An address's history, as the dialects lock it for a transaction's checks (roles/history.ts). */
export interface HistoryKey {
  accountId: string;
  email: string;
}

/** A row of `address_history`. */
export interface HistoryRow {
  account_id: string;
  email: string;
  checks: number;
  first_checked_at: string;
  last_checked_at: string;
  last_verdict: string | null;
}

export interface LedgerRow {
  accountId: string;
  kind: 'grant' | 'hold' | 'debit' | 'release';
  credits: number;
  requestId?: string | null;
  verificationId?: string | null;
  at: Date;
}

export interface HistoryWrite {
  accountId: string;
  email: string;
  /** Checks this transaction adds (the one formula: src/store/roles/history.ts). */
  added: number;
  firstCheckedAt: string;
  lastCheckedAt: string;
  lastVerdict: PublicVerdict | null;
}

/** An item made final: its request's next sequence numbers are handed out by `finalizeItems`. */
export interface FinalItemWrite {
  id: number;
  requestId: string;
  /** 1-based position among this write's finals of the same request. */
  rank: number;
  billing: ItemBilling;
  status: string;
  decision: string | null;
  verdict: PublicVerdict | null;
  resultJson: string;
}

/** An item final at creation (a syntax-invalid list entry), with its sequence number. */
export interface NewFinalItem {
  email: string;
  domain: string;
  seq: number;
  status: string;
  decision: string | null;
  verdict: PublicVerdict | null;
  resultJson: string;
}

/** SQLite's bulk writes answer synchronously (no promise per call on the API path); PostgreSQL's with promises. */
export interface BulkWrites {
  insertLedgerRows(tx: Tx, rows: readonly LedgerRow[]): Awaitable<void>;
  /** Locks and reads the history rows of `keys` (given in key order, so two writers lock alike). */
  lockHistories(tx: Tx, keys: readonly HistoryKey[]): Awaitable<HistoryRow[]>;
  upsertHistories(tx: Tx, rows: readonly HistoryWrite[]): Awaitable<void>;
  /**
   * Inserts pending items and returns how many were inserted. `skipExisting`: an address the
   * request already has is skipped (a list batch's fill, whose chunks may repeat an earlier
   * chunk's address); a new request's items are all new.
   */
  insertPendingItems(tx: Tx, requestId: string, items: ReadonlyArray<{ email: string; domain: string }>, billing: ItemBilling, skipExisting: boolean): Awaitable<number>;
  insertFinalItems(tx: Tx, requestId: string, items: readonly NewFinalItem[]): Awaitable<void>;
  insertListEntries(tx: Tx, listId: string, firstPosition: number, emails: readonly string[]): Awaitable<void>;
  /** Greylisted items wait for their recheck at `at`, from the worker of `affinity` first. */
  markRechecks(tx: Tx, rows: ReadonlyArray<{ id: number; affinity: string; at: Date; waitsForRoute: boolean }>): Awaitable<void>;
  /**
   * Makes items final: each request's final_count grows (and open_count shrinks) by its items
   * here, and each item takes final_seq = the request's count before + its rank. Returns each
   * request's counts after.
   */
  finalizeItems(tx: Tx, items: readonly FinalItemWrite[]): Awaitable<Array<{ id: string; final_count: number; open_count: number }>>;
}

export interface DialectParts extends DialectClaim {
  bulk: BulkWrites;
  /** Batch item results gathered into one write transaction at most (src/store/roles/batches/item-results.ts). */
  resultsPerWrite: number;
}

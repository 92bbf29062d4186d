/**
 * Roles: ledger, verifications, batches, lists (their bulk writes, SQLite). The bulk writes of the shared scripts (src/store/roles/dialect-parts.ts) on SQLite: a cached
 * statement run once per row inside the open write transaction, except for the inserts of a new
 * request's items and of list entries, which take their rows as one JSON array (`json_each`):
 * 10,000 rows in one statement cost a fraction of 10,000 statement calls.
 */
import type { BulkWrites } from '../roles/dialect-parts.js';
import { HISTORY_UPSERT } from '../roles/history.js';
import type { HistoryRow } from '../roles/dialect-parts.js';
import type { Param, Tx } from '../sql.js';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Inside a SQLite write transaction every statement answers at once (src/store/sqlite/database.ts). */
interface SyncTx {
  all<R>(sql: string, params?: readonly Param[]): R[];
  get<R>(sql: string, params?: readonly Param[]): R | undefined;
  run(sql: string, params?: readonly Param[]): number;
}
const sync = (tx: Tx) => tx as unknown as SyncTx;

/** Rows of a bulk write between two yields to the event loop. */
const ROWS_PER_TURN = 100;

/**
 * Runs `each` over `rows`, in order: at once when they are few (an API call's write), else
 * yielding to the event loop every ROWS_PER_TURN rows. Statements are synchronous here, so a
 * worker's 500 results held the loop for 25–45 ms in one piece (BENCHMARKS.md §8). The
 * transaction stays open across the yields and this process's other statements wait for it
 * (src/store/sqlite/database.ts), so nothing interleaves with it; meanwhile the loop answers
 * what needs no statement (/healthz, SMTP replies, a request's parsing).
 */
function eachRow<T>(rows: readonly T[], each: (row: T) => void): void | Promise<void> {
  if (rows.length <= ROWS_PER_TURN) {
    for (const row of rows) each(row);
    return;
  }
  return (async () => {
    for (let i = 0; i < rows.length; i++) {
      if (i > 0 && i % ROWS_PER_TURN === 0) await yieldToLoop();
      each(rows[i] as T);
    }
  })();
}

/** `eachRow`, gathering what `each` returns. */
function mapRows<T, R>(rows: readonly T[], each: (row: T) => R | undefined): R[] | Promise<R[]> {
  const out: R[] = [];
  const keep = (row: T) => {
    const r = each(row);
    if (r !== undefined) out.push(r);
  };
  const done = eachRow(rows, keep);
  return done ? done.then(() => out) : out;
}

const UPSERT_HISTORY = `INSERT INTO address_history (account_id, email, checks, first_checked_at, last_checked_at, last_verdict) VALUES (?, ?, ?, ?, ?, ?) ${HISTORY_UPSERT}`;

export const sqliteBulkWrites: BulkWrites = {
  insertLedgerRows(tx, rows) {
    return eachRow(rows, (r) => {
      sync(tx).run('INSERT INTO credit_ledger (account_id, kind, credits, request_id, verification_id, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        r.accountId,
        r.kind,
        r.credits,
        r.requestId ?? null,
        r.verificationId ?? null,
        r.at,
      ]);
    });
  },

  lockHistories(tx, keys) {
    return mapRows(keys, (k) => sync(tx).get<HistoryRow>('SELECT * FROM address_history WHERE account_id = ? AND email = ?', [k.accountId, k.email]));
  },

  upsertHistories(tx, rows) {
    return eachRow(rows, (r) => {
      sync(tx).run(UPSERT_HISTORY, [r.accountId, r.email, r.added, r.firstCheckedAt, r.lastCheckedAt, r.lastVerdict]);
    });
  },

  insertPendingItems(tx, requestId, items, billing, skipExisting) {
    // Skipping by a lookup first: an upsert (ON CONFLICT DO NOTHING) made every insert of a new
    // request's items slower (benchmark 4: 10,000 addresses finalized ~10 % later).
    const known = skipExisting
      ? new Set(sync(tx).all<{ email: string }>('SELECT email FROM items WHERE request_id = ? AND email IN (SELECT value FROM json_each(?))', [requestId, JSON.stringify(items.map((i) => i.email))]).map((r) => r.email))
      : null;
    const fresh = known && known.size > 0 ? items.filter((i) => !known.has(i.email)) : items;
    if (fresh.length === 0) return 0;
    return sync(tx).run("INSERT INTO items (request_id, email, domain, state, billing) SELECT ?, value ->> 0, value ->> 1, 'pending', ? FROM json_each(?) ORDER BY key", [
      requestId,
      billing,
      JSON.stringify(fresh.map((i) => [i.email, i.domain])),
    ]);
  },

  insertFinalItems(tx, requestId, items) {
    return eachRow(items, (i) => {
      sync(tx).run(
        `INSERT INTO items (request_id, email, domain, state, billing, final_seq, envelope_status, decision, verdict, result_json)
         VALUES (?, ?, ?, 'final', 'none', ?, ?, ?, ?, ?)`,
        [requestId, i.email, i.domain, i.seq, i.status, i.decision, i.verdict, i.resultJson],
      );
    });
  },

  insertListEntries(tx, listId, firstPosition, emails) {
    if (emails.length === 0) return;
    sync(tx).run('INSERT INTO list_entries (list_id, position, email) SELECT ?, ? + key, value FROM json_each(?) ORDER BY key', [listId, firstPosition, JSON.stringify(emails)]);
  },

  markRechecks(tx, rows) {
    return eachRow(rows, (r) => {
      sync(tx).run(
        "UPDATE items SET state = 'recheck', affinity = ?, not_before = ?, rechecks = rechecks + 1, claimed_by = NULL, lease_expires_at = NULL, waits_for_route = ? WHERE id = ?",
        [r.affinity, r.at, r.waitsForRoute ? 1 : 0, r.id],
      );
    });
  },

  finalizeItems(tx, items) {
    const counts = new Map<string, number>();
    for (const i of items) counts.set(i.requestId, (counts.get(i.requestId) ?? 0) + 1);
    const after = new Map<string, { id: string; final_count: number; open_count: number }>();
    for (const [id, n] of counts) {
      const row = sync(tx).get<{ final_count: number; open_count: number }>(
        'UPDATE requests SET final_count = final_count + ?, open_count = open_count - ? WHERE id = ? RETURNING final_count, open_count',
        [n, n, id],
      );
      if (row) after.set(id, { id, ...row });
    }
    const done = eachRow(items, (i) => {
      const r = after.get(i.requestId);
      if (!r) return;
      const n = counts.get(i.requestId) ?? 0;
      sync(tx).run(
        `UPDATE items SET state = 'final', billing = ?, final_seq = ?, envelope_status = ?, decision = ?, verdict = ?, result_json = ?,
           claimed_by = NULL, lease_expires_at = NULL WHERE id = ?`,
        [i.billing, r.final_count - n + i.rank, i.status, i.decision, i.verdict, i.resultJson, i.id],
      );
    });
    return done ? done.then(() => [...after.values()]) : [...after.values()];
  },
};

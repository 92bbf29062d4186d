/**
 * The bulk writes of the shared scripts (src/store/roles/dialect-parts.ts) on SQLite: a cached
 * statement run once per row. better-sqlite3 runs each in microseconds inside the open write
 * transaction, so a multi-row statement would buy nothing.
 */
import type { BulkWrites } from '../roles/dialect-parts.js';
import { HISTORY_UPSERT } from '../roles/history.js';
import type { HistoryRow } from '../roles/history.js';

export const sqliteBulkWrites: BulkWrites = {
  async insertLedgerRows(tx, rows) {
    for (const r of rows) {
      await tx.run('INSERT INTO credit_ledger (account_id, kind, credits, request_id, verification_id, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        r.accountId,
        r.kind,
        r.credits,
        r.requestId ?? null,
        r.verificationId ?? null,
        r.at,
      ]);
    }
  },

  async lockHistories(tx, keys) {
    const found: HistoryRow[] = [];
    for (const k of keys) {
      const row = await tx.get<HistoryRow>('SELECT * FROM address_history WHERE account_id = ? AND email = ?', [k.accountId, k.email]);
      if (row) found.push(row);
    }
    return found;
  },

  async upsertHistories(tx, rows) {
    for (const r of rows) {
      await tx.run(
        `INSERT INTO address_history (account_id, email, checks, first_checked_at, last_checked_at, last_verdict) VALUES (?, ?, ?, ?, ?, ?) ${HISTORY_UPSERT}`,
        [r.accountId, r.email, r.added, r.firstCheckedAt, r.lastCheckedAt, r.lastVerdict],
      );
    }
  },

  async insertPendingItems(tx, requestId, items, billing) {
    for (const i of items) {
      await tx.run("INSERT INTO items (request_id, email, domain, state, billing) VALUES (?, ?, ?, 'pending', ?)", [requestId, i.email, i.domain, billing]);
    }
  },

  async insertFinalItems(tx, requestId, items) {
    for (const i of items) {
      await tx.run(
        `INSERT INTO items (request_id, email, domain, state, billing, final_seq, envelope_status, decision, verdict, result_json)
         VALUES (?, ?, ?, 'final', 'none', ?, ?, ?, ?, ?)`,
        [requestId, i.email, i.domain, i.seq, i.status, i.decision, i.verdict, i.resultJson],
      );
    }
  },

  async insertListEntries(tx, listId, firstPosition, emails) {
    let position = firstPosition;
    for (const email of emails) await tx.run('INSERT INTO list_entries (list_id, position, email) VALUES (?, ?, ?)', [listId, position++, email]);
  },

  async markRechecks(tx, rows) {
    for (const r of rows) {
      await tx.run(
        "UPDATE items SET state = 'recheck', affinity = ?, not_before = ?, rechecks = rechecks + 1, claimed_by = NULL, lease_expires_at = NULL WHERE id = ?",
        [r.affinity, r.at, r.id],
      );
    }
  },

  async finalizeItems(tx, items) {
    const counts = new Map<string, number>();
    for (const i of items) counts.set(i.requestId, (counts.get(i.requestId) ?? 0) + 1);
    const after = new Map<string, { id: string; final_count: number; open_count: number }>();
    for (const [id, n] of counts) {
      const row = await tx.get<{ final_count: number; open_count: number }>(
        'UPDATE requests SET final_count = final_count + ?, open_count = open_count - ? WHERE id = ? RETURNING final_count, open_count',
        [n, n, id],
      );
      if (row) after.set(id, { id, ...row });
    }
    for (const i of items) {
      const r = after.get(i.requestId);
      if (!r) continue;
      const n = counts.get(i.requestId) ?? 0;
      await tx.run(
        `UPDATE items SET state = 'final', billing = ?, final_seq = ?, envelope_status = ?, decision = ?, verdict = ?, result_json = ?,
           claimed_by = NULL, lease_expires_at = NULL WHERE id = ?`,
        [i.billing, r.final_count - n + i.rank, i.status, i.decision, i.verdict, i.resultJson, i.id],
      );
    }
    return [...after.values()];
  },
};

/**
 * Roles: ledger, verifications, batches, lists (their bulk writes, PostgreSQL). The bulk writes of the shared scripts (src/store/roles/dialect-parts.ts) on PostgreSQL: one
 * statement over arrays (`unnest`) per step, whatever the row count, so a gathered transaction of
 * hundreds of results costs a handful of round trips.
 */
import type { BulkWrites } from '../roles/dialect-parts.js';
import { HISTORY_UPSERT } from '../roles/history.js';
import type { HistoryRow } from '../roles/dialect-parts.js';

/** Rows per INSERT of a new request's items or a list's entries: bounds one statement's parameters. */
const CHUNK = 5_000;

export const postgresBulkWrites: BulkWrites = {
  async insertLedgerRows(tx, rows) {
    if (rows.length === 0) return;
    await tx.run(
      `INSERT INTO credit_ledger (account_id, kind, credits, request_id, verification_id, created_at)
       SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::timestamptz[])`,
      [rows.map((r) => r.accountId), rows.map((r) => r.kind), rows.map((r) => r.credits), rows.map((r) => r.requestId ?? null), rows.map((r) => r.verificationId ?? null), rows.map((r) => r.at)],
    );
  },

  async lockHistories(tx, keys) {
    if (keys.length === 0) return [];
    return tx.all<HistoryRow>(
      `SELECT h.* FROM address_history h JOIN unnest(?::text[], ?::text[]) AS k(a, e) ON h.account_id = k.a AND h.email = k.e
       ORDER BY h.account_id, h.email FOR UPDATE OF h`,
      [keys.map((k) => k.accountId), keys.map((k) => k.email)],
    );
  },

  async upsertHistories(tx, rows) {
    if (rows.length === 0) return;
    await tx.run(
      `INSERT INTO address_history (account_id, email, checks, first_checked_at, last_checked_at, last_verdict)
       SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::timestamptz[], ?::timestamptz[], ?::text[]) ${HISTORY_UPSERT}`,
      [rows.map((r) => r.accountId), rows.map((r) => r.email), rows.map((r) => r.added), rows.map((r) => r.firstCheckedAt), rows.map((r) => r.lastCheckedAt), rows.map((r) => r.lastVerdict)],
    );
  },

  async insertPendingItems(tx, requestId, items, billing, skipExisting) {
    // Skipping inside the insert: a lookup of the chunk's addresses first (`email = ANY(…)`)
    // took ~140 ms a chunk under the request row's lock (BENCHMARKS.md §8).
    const sql = `INSERT INTO items (request_id, email, domain, state, billing) SELECT ?, e, d, 'pending', ? FROM unnest(?::text[], ?::text[]) AS t(e, d)${
      skipExisting ? ' ON CONFLICT (request_id, email) DO NOTHING' : ''
    }`;
    let inserted = 0;
    for (let start = 0; start < items.length; start += CHUNK) {
      const part = items.slice(start, start + CHUNK);
      inserted += await tx.run(sql, [requestId, billing, part.map((i) => i.email), part.map((i) => i.domain)]);
    }
    return inserted;
  },

  async insertFinalItems(tx, requestId, items) {
    for (let start = 0; start < items.length; start += CHUNK) {
      const part = items.slice(start, start + CHUNK);
      await tx.run(
        `INSERT INTO items (request_id, email, domain, state, billing, final_seq, envelope_status, decision, verdict, result_json)
         SELECT ?, e, d, 'final', 'none', q, s, dc, v, r FROM unnest(?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[]) AS t(e, d, q, s, dc, v, r)`,
        [
          requestId,
          part.map((i) => i.email),
          part.map((i) => i.domain),
          part.map((i) => i.seq),
          part.map((i) => i.status),
          part.map((i) => i.decision),
          part.map((i) => i.verdict),
          part.map((i) => i.resultJson),
        ],
      );
    }
  },

  async insertListEntries(tx, listId, firstPosition, emails) {
    for (let start = 0; start < emails.length; start += CHUNK) {
      await tx.run('INSERT INTO list_entries (list_id, position, email) SELECT ?, ?::int + n - 1, e FROM unnest(?::text[]) WITH ORDINALITY AS t(e, n)', [
        listId,
        firstPosition + start,
        emails.slice(start, start + CHUNK),
      ]);
    }
  },

  async markRechecks(tx, rows) {
    if (rows.length === 0) return;
    await tx.run(
      `UPDATE items i SET state = 'recheck', affinity = d.affinity, not_before = d.at, rechecks = i.rechecks + 1, claimed_by = NULL, lease_expires_at = NULL,
         waits_for_route = d.waits
       FROM unnest(?::bigint[], ?::text[], ?::timestamptz[], ?::smallint[]) AS d(id, affinity, at, waits) WHERE i.id = d.id`,
      [rows.map((r) => r.id), rows.map((r) => r.affinity), rows.map((r) => r.at), rows.map((r) => (r.waitsForRoute ? 1 : 0))],
    );
  },

  /**
   * One statement: the requests' counters and the items' final rows together, so the hot request
   * rows stay locked for one round trip and the COMMIT. The results travel as one JSON array (no
   * text-array escaping of every quote); a json element's text is exactly what was sent.
   */
  async finalizeItems(tx, items) {
    const counts = new Map<string, number>();
    for (const i of items) counts.set(i.requestId, (counts.get(i.requestId) ?? 0) + 1);
    const requestIds = [...counts.keys()].sort();
    return tx.all<{ id: string; final_count: number; open_count: number }>(
      `WITH k AS (SELECT * FROM unnest(?::text[], ?::int[]) AS k(id, n)),
       r AS (
         UPDATE requests r SET final_count = r.final_count + k.n, open_count = r.open_count - k.n FROM k WHERE r.id = k.id
         RETURNING r.id, r.final_count, r.open_count, k.n
       ),
       d AS (
         SELECT u.id, u.request_id, u.rank, u.billing, u.status, u.decision, u.verdict, j.value::text AS result_json
         FROM unnest(?::bigint[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY
           AS u(id, request_id, rank, billing, status, decision, verdict, n)
         JOIN json_array_elements(?::json) WITH ORDINALITY AS j(value, n) ON j.n = u.n
       ),
       it AS (
         UPDATE items i SET state = 'final', billing = d.billing, final_seq = r.final_count - r.n + d.rank, envelope_status = d.status,
           decision = d.decision, verdict = d.verdict, result_json = d.result_json, claimed_by = NULL, lease_expires_at = NULL
         FROM d JOIN r ON r.id = d.request_id WHERE i.id = d.id RETURNING i.id
       )
       -- it runs to completion although nothing reads it (data-modifying WITH, PostgreSQL docs §7.8.4).
       SELECT r.id, r.final_count, r.open_count FROM r`,
      [
        requestIds,
        requestIds.map((id) => counts.get(id) ?? 0),
        items.map((i) => i.id),
        items.map((i) => i.requestId),
        items.map((i) => i.rank),
        items.map((i) => i.billing),
        items.map((i) => i.status),
        items.map((i) => i.decision),
        items.map((i) => i.verdict),
        `[${items.map((i) => i.resultJson).join(',')}]`,
      ],
    );
  },
};

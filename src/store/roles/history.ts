/**
 * Roles: verifications, batches (address history). Address history (the envelope's `history`, docs/design.md §4): per account and address, how often it
 * was checked, when first and last, and the last verdict. Every use case that finishes a check
 * (a single check, a batch item) reads the rows it will change with a lock and writes them
 * back with one formula: `checks` grows by the checks this transaction adds, so two writers
 * that both found no row (on PostgreSQL) still count both.
 */
import type { AddressHistory, PublicVerdict } from '../../core/types.js';
import type { Awaitable, Tx } from '../sql.js';
import type { StoredResult } from '../stored-result.js';
import type { BulkWrites, HistoryKey, HistoryRow } from './dialect-parts.js';
import { nextHistory } from '../billing-rules.js';
import { NO_FEEDBACK } from '../../core/feedback-verdict.js';

/** The one upsert formula, appended by each dialect's bulk write to its INSERT of (…, checks = checks added, …). */
export const HISTORY_UPSERT = `ON CONFLICT (account_id, email) DO UPDATE SET checks = address_history.checks + excluded.checks,
  last_checked_at = excluded.last_checked_at, last_verdict = excluded.last_verdict`;

const keyOf = (k: HistoryKey) => `${k.accountId}\n${k.email}`;

/**
 * The histories of a transaction's checks. `record` returns the history an address had before
 * this check (what its envelope shows) and chains a second check of the same address after the
 * first; `save` writes them all back.
 */
export interface Histories {
  record(key: HistoryKey, finalize: (previous: AddressHistory | null) => StoredResult): StoredResult;
  save(): Awaitable<void>;
}

/** Awaitable rather than async: on SQLite the rows are there at once, and the API path pays no promise for them. */
export function openHistories(tx: Tx, bulk: BulkWrites, keys: readonly HistoryKey[]): Awaitable<Histories> {
  const distinct = keys.length === 1 ? keys : [...new Map(keys.map((k) => [keyOf(k), k])).values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  const rows = bulk.lockHistories(tx, distinct);
  return rows instanceof Promise ? rows.then((r) => histories(tx, bulk, r)) : histories(tx, bulk, rows);
}

function histories(tx: Tx, bulk: BulkWrites, rows: readonly HistoryRow[]): Histories {
  const found = new Map(
    rows.map((r): [string, AddressHistory] => [
      keyOf({ accountId: r.account_id, email: r.email }),
      { checks: r.checks, firstCheckedAt: r.first_checked_at, lastCheckedAt: r.last_checked_at, lastVerdict: r.last_verdict as PublicVerdict | null, ...NO_FEEDBACK },
    ]),
  );
  const changed = new Map<string, { key: HistoryKey; added: number; history: ReturnType<typeof nextHistory> }>();
  return {
    record(key, finalize) {
      const k = keyOf(key);
      const previous = found.get(k) ?? null;
      const stored = finalize(previous);
      const history = nextHistory(previous, stored);
      found.set(k, history);
      changed.set(k, { key, added: (changed.get(k)?.added ?? 0) + 1, history });
      return stored;
    },
    save() {
      if (changed.size === 0) return;
      return bulk.upsertHistories(
        tx,
        [...changed.values()].map((c) => ({
          accountId: c.key.accountId,
          email: c.key.email,
          added: c.added,
          firstCheckedAt: c.history.firstCheckedAt,
          lastCheckedAt: c.history.lastCheckedAt,
          lastVerdict: c.history.lastVerdict,
        })),
      );
    },
  };
}

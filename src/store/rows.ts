/**
 * Row shapes of stored lists and single checks, shared by the SQLite and PostgreSQL stores, and
 * their mapping to the records of src/store/store.ts (they move with those roles; the other
 * roles map their rows in their own files). Both schemas name columns alike; only booleans
 * differ (SQLite stores 0/1), so the mappers accept either.
 */
import type { ListRecord, ListState, VerificationRecord, VerificationState } from './store.js';
import type { StoredResult } from './stored-result.js';

export interface ListRow {
  id: string;
  account_id: string;
  name: string | null;
  state: ListState;
  entries: number;
  created_at: string;
}

export const toList = (r: ListRow): ListRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  state: r.state,
  entries: r.entries,
  createdAt: r.created_at,
});

export interface VerificationRow {
  id: string;
  account_id: string;
  email: string;
  state: VerificationState;
  /** boolean on PostgreSQL, 0/1 on SQLite */
  billable: boolean | number;
  billing: string;
  result_json: string | null;
  created_at: string;
  /** Its caller was answered 202 (boolean on PostgreSQL, 0/1 on SQLite). */
  resumable?: boolean | number;
  /** The requestId of the first 202 its caller got. */
  answered_request_id?: string | null;
}

export const toVerificationRecord = (r: VerificationRow): VerificationRecord => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  state: r.state,
  billable: r.billable === true || r.billable === 1,
  createdAt: r.created_at,
  result: r.result_json ? (JSON.parse(r.result_json) as StoredResult) : null,
});

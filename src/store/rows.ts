/**
 * Roles: accounts, lists, verifications (row mapping). Row shapes shared by the SQLite and PostgreSQL stores, and their mapping to the store
 * contract's records. Both schemas name columns alike; only booleans differ (SQLite stores
 * 0/1), so the mappers accept either.
 */
import type { Account, AuthenticatedKey, KeyMode, ListRecord, ListState, StoredResult, VerificationRecord, VerificationState } from './store.js';

export interface AccountRow {
  id: string;
  name: string;
  created_at: string;
  rate_limit_per_second: number | null;
  rate_limit_burst: number | null;
}

export const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  rateLimitPerSecond: r.rate_limit_per_second,
  rateLimitBurst: r.rate_limit_burst,
});

/** A live key joined with its account's rate-limit override (authentication). */
export interface ActiveKeyRow {
  id: string;
  account_id: string;
  mode: KeyMode;
  display_prefix: string;
  rate_limit_per_second: number | null;
  rate_limit_burst: number | null;
}

export const toAuthenticatedKey = (r: ActiveKeyRow): AuthenticatedKey => ({
  keyId: r.id,
  accountId: r.account_id,
  mode: r.mode,
  displayPrefix: r.display_prefix,
  rateLimitPerSecond: r.rate_limit_per_second,
  rateLimitBurst: r.rate_limit_burst,
});

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

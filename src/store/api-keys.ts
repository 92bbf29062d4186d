/**
 * What names an API key, shared by the roles that authenticate with one (accounts) and manage
 * them (key management): its mode, what authentication yields, and the row that yields it.
 */

export type KeyMode = 'live' | 'test';

/** What authentication yields: the key and the account it acts for. */
export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  mode: KeyMode;
  displayPrefix: string;
  rateLimitPerSecond: number | null;
  rateLimitBurst: number | null;
}

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


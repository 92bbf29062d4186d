/**
 * Role: accounts (key lookups cached, SQLite). Active API keys by hash, kept in memory between requests. A key lookup was one of the
 * largest costs of an API call (BENCHMARKS.md §3). The cache is exact, not time-based:
 * it is dropped whenever another connection has committed to the file (`PRAGMA data_version`
 * moves — e.g. `presend keys revoke` run in another process) and whenever this store changes
 * keys or rate limits itself, so a revoked key stops working at once. Unknown keys are not
 * cached (key guessing must not fill memory).
 */
import type Database from 'better-sqlite3';
import type { AccountsRole } from '../roles/accounts.js';
import type { KeyManagementRole } from '../roles/key-management.js';
import type { AuthenticatedKey } from '../api-keys.js';
import { storeCall } from '../store-failure.js';

const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly keys = new Map<string, AuthenticatedKey>();
  private dataVersion: number;
  private readonly version: Database.Statement;

  constructor(db: Database.Database) {
    // Its own statement: pluck() changes how the statement returns rows.
    this.version = db.prepare('PRAGMA data_version').pluck();
    this.dataVersion = this.version.get() as number;
  }

  async get(hash: string, lookup: (hash: string) => Promise<AuthenticatedKey | null>): Promise<AuthenticatedKey | null> {
    const now = storeCall(() => this.version.get() as number);
    if (now !== this.dataVersion) {
      this.dataVersion = now;
      this.keys.clear();
    }
    const cached = this.keys.get(hash);
    if (cached) return cached;
    const found = await lookup(hash);
    if (found) {
      if (this.keys.size >= MAX_ENTRIES) this.keys.clear();
      this.keys.set(hash, found);
    }
    return found;
  }

  /** This connection changed keys or accounts: forget everything. */
  clear(): void {
    this.keys.clear();
  }
}

/**
 * The roles that read or change keys, over one cache: the accounts role with its key lookups
 * cached, and every change made through either role (a revocation from the dashboard too)
 * dropping the cache.
 */
export function keyCachedRoles(db: Database.Database) {
  const cache = new KeyCache(db);
  // Dropped after the change too: a lookup while it was written may have cached the old row.
  const dropping = <A extends unknown[], R>(change: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    cache.clear();
    const out = await change(...args);
    cache.clear();
    return out;
  };
  return {
    accounts: (accounts: AccountsRole): AccountsRole => ({
      ...accounts,
      findActiveKey: (hash) => cache.get(hash, accounts.findActiveKey),
      setAccountRateLimit: dropping(accounts.setAccountRateLimit),
    }),
    keyManagement: (keys: KeyManagementRole): KeyManagementRole => ({ ...keys, revokeKey: dropping(keys.revokeKey) }),
  };
}

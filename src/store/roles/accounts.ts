/**
 * Role: accounts, and authentication by API key (docs/design.md §3): a key is found by the
 * SHA-256 of the whole key, never stored itself. Keys are made and revoked by key-management.ts.
 */
import { randomUUID } from 'node:crypto';
import { toAuthenticatedKey } from '../api-keys.js';
import type { ActiveKeyRow, AuthenticatedKey } from '../api-keys.js';
import type { Db } from '../sql.js';
import type { BulkWrites } from './dialect-parts.js';
import { moveCredits } from './ledger.js';

/** Accounts, and authentication by API key (docs/design.md §3). Keys are made, listed and revoked by KeyManagementRole. */
export interface AccountsRole {
  /** Null when the name is taken. `credits` > 0 adds an initial grant. */
  createAccount(input: { name: string; credits: number; now: Date }): Promise<Account | null>;
  findAccountByName(name: string): Promise<Account | null>;
  setAccountRateLimit(accountId: string, perSecond: number | null, burst: number | null): Promise<void>;
  /** The key whose SHA-256 (hex) is `hash`, with its account's limits; null for unknown or revoked keys. */
  findActiveKey(hash: string): Promise<AuthenticatedKey | null>;
}

export interface Account {
  id: string;
  name: string;
  createdAt: string;
  /** Per-account token-bucket override; null = the service default. */
  rateLimitPerSecond: number | null;
  rateLimitBurst: number | null;
}

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

export function accountsRole(db: Db, bulk: BulkWrites): AccountsRole {
  return {
    createAccount: (input) =>
      db.write(async (tx) => {
        const row = await tx.get<AccountRow>('INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING RETURNING *', [
          randomUUID(),
          input.name,
          input.now,
        ]);
        if (!row) return null;
        await moveCredits(tx, bulk, [{ accountId: row.id, kind: 'grant', credits: input.credits, at: input.now }]);
        return toAccount(row);
      }),

    findAccountByName: async (name) => {
      const row = await db.get<AccountRow>('SELECT * FROM accounts WHERE name = ?', [name]);
      return row ? toAccount(row) : null;
    },

    setAccountRateLimit: async (accountId, perSecond, burst) => {
      await db.run('UPDATE accounts SET rate_limit_per_second = ?, rate_limit_burst = ? WHERE id = ?', [perSecond, burst, accountId]);
    },

    findActiveKey: async (hash) => {
      const row = await db.get<ActiveKeyRow>(
        `SELECT k.id, k.account_id, k.mode, k.display_prefix, a.rate_limit_per_second, a.rate_limit_burst
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ? AND k.revoked_at IS NULL`,
        [hash],
      );
      return row ? toAuthenticatedKey(row) : null;
    },
  };
}

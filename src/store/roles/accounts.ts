/**
 * Role: accounts, and authentication by API key (docs/design.md §3): a key is found by the
 * SHA-256 of the whole key, never stored itself. Keys are made and revoked by key-management.ts.
 */
import { randomUUID } from 'node:crypto';
import type { AccountsRole } from '../backend.js';
import { toAccount, toAuthenticatedKey } from '../rows.js';
import type { AccountRow, ActiveKeyRow } from '../rows.js';
import type { Db } from '../sql.js';
import type { BulkWrites } from './dialect-parts.js';
import { moveCredits } from './ledger.js';

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

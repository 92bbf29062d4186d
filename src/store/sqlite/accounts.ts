/** Accounts, keys, credits, rate buckets and lists on SQLite. */
import { randomUUID } from 'node:crypto';
import type { SqliteContext } from './context.js';
import type { Account, ApiKeyRecord, AuthenticatedKey, CreditBalance, KeyMode, ListRecord } from '../store.js';
import { toAccount, toAuthenticatedKey, toKey, toList } from '../rows.js';
import type { AccountRow, ActiveKeyRow, KeyRow, ListRow } from '../rows.js';


export function createAccount(ctx: SqliteContext, input: { name: string; credits: number; now: Date }): Account | null {
  return ctx.write(() => {
    if (ctx.stmt('SELECT 1 FROM accounts WHERE name = ?').get(input.name)) return null;
    const id = randomUUID();
    ctx.stmt('INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)').run(id, input.name, input.now.toISOString());
    ctx.ledger(id, 'grant', input.credits, {}, input.now);
    return toAccount(ctx.stmt('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow);
  });
}

export function findAccountByName(ctx: SqliteContext, name: string): Account | null {
  const row = ctx.stmt('SELECT * FROM accounts WHERE name = ?').get(name) as AccountRow | undefined;
  return row ? toAccount(row) : null;
}

export function balance(ctx: SqliteContext, accountId: string): CreditBalance {
  const row = ctx.stmt('SELECT credits_granted, credits_debited, credits_held FROM accounts WHERE id = ?').get(accountId) as
    | { credits_granted: number; credits_debited: number; credits_held: number }
    | undefined;
  if (!row) return { granted: 0, debited: 0, held: 0, available: 0 };
  return {
    granted: row.credits_granted,
    debited: row.credits_debited,
    held: row.credits_held,
    available: row.credits_granted - row.credits_debited - row.credits_held,
  };
}

export function grantCredits(ctx: SqliteContext, accountId: string, credits: number, now: Date): CreditBalance {
  return ctx.write(() => {
    ctx.ledger(accountId, 'grant', credits, {}, now);
    return balance(ctx, accountId);
  });
}

export function createApiKey(ctx: SqliteContext, input: { accountId: string; hash: string; displayPrefix: string; mode: KeyMode; now: Date }): ApiKeyRecord {
  const id = randomUUID();
  ctx.stmt('INSERT INTO api_keys (id, account_id, hash, display_prefix, mode, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    input.accountId,
    input.hash,
    input.displayPrefix,
    input.mode,
    input.now.toISOString(),
  );
  return toKey(ctx.stmt('SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow);
}

export function listApiKeys(ctx: SqliteContext, accountId: string): ApiKeyRecord[] {
  return (ctx.stmt('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id').all(accountId) as KeyRow[]).map(toKey);
}

export function revokeApiKeys(ctx: SqliteContext, prefix: string, now: Date): number {
  const pattern = prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
  return ctx.stmt("UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL AND display_prefix LIKE ? ESCAPE '\\'").run(now.toISOString(), pattern)
    .changes;
}

export function findActiveKey(ctx: SqliteContext, hash: string): AuthenticatedKey | null {
  const row = ctx
    .stmt(
      `SELECT k.id, k.account_id, k.mode, k.display_prefix, a.rate_limit_per_second, a.rate_limit_burst
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ? AND k.revoked_at IS NULL`,
    )
    .get(hash) as ActiveKeyRow | undefined;
  return row ? toAuthenticatedKey(row) : null;
}

export function createList(ctx: SqliteContext, input: { accountId: string; name: string | null; now: Date }): ListRecord {
  const id = randomUUID();
  ctx.stmt("INSERT INTO lists (id, account_id, name, state, created_at) VALUES (?, ?, ?, 'importing', ?)").run(
    id,
    input.accountId,
    input.name,
    input.now.toISOString(),
  );
  return toList(ctx.stmt('SELECT * FROM lists WHERE id = ?').get(id) as ListRow);
}

export function appendListEntries(ctx: SqliteContext, listId: string, emails: readonly string[]): void {
  ctx.write(() => {
    const row = ctx.stmt('SELECT entries FROM lists WHERE id = ?').get(listId) as { entries: number } | undefined;
    if (!row) throw new Error(`list ${listId} does not exist`);
    const insert = ctx.stmt('INSERT INTO list_entries (list_id, position, email) VALUES (?, ?, ?)');
    emails.forEach((email, i) => insert.run(listId, row.entries + i, email));
    ctx.stmt('UPDATE lists SET entries = entries + ? WHERE id = ?').run(emails.length, listId);
  });
}

export function finishListImport(ctx: SqliteContext, listId: string, state: 'ready' | 'failed'): ListRecord {
  ctx.stmt('UPDATE lists SET state = ? WHERE id = ?').run(state, listId);
  return toList(ctx.stmt('SELECT * FROM lists WHERE id = ?').get(listId) as ListRow);
}

export function getList(ctx: SqliteContext, accountId: string, listId: string): ListRecord | null {
  const row = ctx.stmt('SELECT * FROM lists WHERE id = ? AND account_id = ?').get(listId, accountId) as ListRow | undefined;
  return row ? toList(row) : null;
}

export function readListEntries(ctx: SqliteContext, listId: string): string[] {
  return (ctx.stmt('SELECT email FROM list_entries WHERE list_id = ? ORDER BY position').all(listId) as Array<{ email: string }>).map((r) => r.email);
}

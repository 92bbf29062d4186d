/** Accounts, keys, credits, rate buckets and lists on PostgreSQL. */
import { randomUUID } from 'node:crypto';
import type { PgDatabase, Tx } from './database.js';
import { ledger } from './ledger.js';
import type { Account, ApiKeyRecord, AuthenticatedKey, CreditBalance, KeyMode, ListRecord, RateDecision } from '../store.js';
import { toAccount, toAuthenticatedKey, toKey, toList } from '../rows.js';
import type { AccountRow, ActiveKeyRow, KeyRow, ListRow } from '../rows.js';
import { takeToken } from '../token-bucket.js';


export function createAccount(db: PgDatabase, input: { name: string; credits: number; now: Date }): Promise<Account | null> {
  return db.tx(async (tx) => {
    const row = await tx.one<AccountRow>('INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING *', [
      randomUUID(),
      input.name,
      input.now,
    ]);
    if (!row) return null;
    await ledger(tx, row.id, 'grant', input.credits, {}, input.now);
    return toAccount(row);
  });
}

export async function findAccountByName(db: PgDatabase, name: string): Promise<Account | null> {
  const row = await db.one<AccountRow>('SELECT * FROM accounts WHERE name = $1', [name]);
  return row ? toAccount(row) : null;
}

export async function balance(tx: Pick<Tx, 'one'>, accountId: string): Promise<CreditBalance> {
  const row = await tx.one<{ credits_granted: number; credits_debited: number; credits_held: number }>(
    'SELECT credits_granted, credits_debited, credits_held FROM accounts WHERE id = $1',
    [accountId],
  );
  if (!row) return { granted: 0, debited: 0, held: 0, available: 0 };
  return {
    granted: row.credits_granted,
    debited: row.credits_debited,
    held: row.credits_held,
    available: row.credits_granted - row.credits_debited - row.credits_held,
  };
}

export function grantCredits(db: PgDatabase, accountId: string, credits: number, now: Date): Promise<CreditBalance> {
  return db.tx(async (tx) => {
    await ledger(tx, accountId, 'grant', credits, {}, now);
    return balance(tx, accountId);
  });
}

export async function createApiKey(db: PgDatabase, input: { accountId: string; hash: string; displayPrefix: string; mode: KeyMode; now: Date }): Promise<ApiKeyRecord> {
  const row = await db.one<KeyRow>('INSERT INTO api_keys (id, account_id, hash, display_prefix, mode, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *', [
    randomUUID(),
    input.accountId,
    input.hash,
    input.displayPrefix,
    input.mode,
    input.now,
  ]);
  return toKey(row as KeyRow);
}

export async function listApiKeys(db: PgDatabase, accountId: string): Promise<ApiKeyRecord[]> {
  return (await db.q<KeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(toKey);
}

export async function revokeApiKeys(db: PgDatabase, prefix: string, now: Date): Promise<number> {
  const pattern = prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
  const rows = await db.q("UPDATE api_keys SET revoked_at = $1 WHERE revoked_at IS NULL AND display_prefix LIKE $2 ESCAPE '\\' RETURNING id", [now, pattern]);
  return rows.length;
}

export async function findActiveKey(db: PgDatabase, hash: string): Promise<AuthenticatedKey | null> {
  const row = await db.one<ActiveKeyRow>(
    `SELECT k.id, k.account_id, k.mode, k.display_prefix, a.rate_limit_per_second, a.rate_limit_burst
     FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1 AND k.revoked_at IS NULL`,
    [hash],
  );
  return row ? toAuthenticatedKey(row) : null;
}

/**
 * Token bucket in one row per key, shared by every API node: the row is created full, then
 * locked (FOR UPDATE) while it is refilled and one token taken, so concurrent requests on two
 * nodes queue on the row and never spend the same token twice. The refill clock never runs
 * backwards, even when nodes' clocks disagree slightly.
 */
export function consumeRateToken(db: PgDatabase, input: { keyId: string; now: Date; perSecond: number; burst: number }): Promise<RateDecision> {
  return db.tx(async (tx) => {
    const nowMs = input.now.getTime();
    await tx.q('INSERT INTO rate_buckets (key_id, tokens, updated_ms) VALUES ($1, $2, $3) ON CONFLICT (key_id) DO NOTHING', [input.keyId, input.burst, nowMs]);
    const row = (await tx.one<{ tokens: number; updated_ms: number }>('SELECT tokens, updated_ms FROM rate_buckets WHERE key_id = $1 FOR UPDATE', [
      input.keyId,
    ])) as { tokens: number; updated_ms: number };
    const { state, decision } = takeToken({ tokens: row.tokens, updatedMs: row.updated_ms }, nowMs, input.perSecond, input.burst);
    await tx.q('UPDATE rate_buckets SET tokens = $2, updated_ms = $3 WHERE key_id = $1', [input.keyId, state.tokens, Math.max(nowMs, row.updated_ms)]);
    return decision;
  });
}

export async function createList(db: PgDatabase, input: { accountId: string; name: string | null; now: Date }): Promise<ListRecord> {
  const row = await db.one<ListRow>("INSERT INTO lists (id, account_id, name, state, created_at) VALUES ($1, $2, $3, 'importing', $4) RETURNING *", [
    randomUUID(),
    input.accountId,
    input.name,
    input.now,
  ]);
  return toList(row as ListRow);
}

/** Appends in one transaction; positions continue from the locked list row's count. */
export function appendListEntries(db: PgDatabase, listId: string, emails: readonly string[]): Promise<void> {
  return db.tx(async (tx) => {
    const row = await tx.one<{ entries: number }>('SELECT entries FROM lists WHERE id = $1 FOR UPDATE', [listId]);
    if (!row) throw new Error(`list ${listId} does not exist`);
    const CHUNK = 5_000;
    for (let start = 0; start < emails.length; start += CHUNK) {
      const part = emails.slice(start, start + CHUNK);
      await tx.q('INSERT INTO list_entries (list_id, position, email) SELECT $1, $2::int + n - 1, e FROM unnest($3::text[]) WITH ORDINALITY AS t(e, n)', [
        listId,
        row.entries + start,
        part,
      ]);
    }
    await tx.q('UPDATE lists SET entries = entries + $1 WHERE id = $2', [emails.length, listId]);
  });
}

export async function finishListImport(db: PgDatabase, listId: string, state: 'ready' | 'failed'): Promise<ListRecord> {
  const row = await db.one<ListRow>('UPDATE lists SET state = $1 WHERE id = $2 RETURNING *', [state, listId]);
  if (!row) throw new Error(`list ${listId} does not exist`);
  return toList(row);
}

export async function getList(db: PgDatabase, accountId: string, listId: string): Promise<ListRecord | null> {
  const row = await db.one<ListRow>('SELECT * FROM lists WHERE id = $1 AND account_id = $2', [listId, accountId]);
  return row ? toList(row) : null;
}

export async function readListEntries(db: PgDatabase, listId: string): Promise<string[]> {
  return (await db.q<{ email: string }>('SELECT email FROM list_entries WHERE list_id = $1 ORDER BY position', [listId])).map((r) => r.email);
}

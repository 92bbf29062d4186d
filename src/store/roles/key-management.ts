/**
 * Role: API keys (docs/design.md §3, §7), whoever makes or revokes them: an owner on the
 * dashboard or `presend keys`. This is the only place keys are written, and a key row and its
 * audit event are written in one transaction, so the trail never misses a change. Revocation is
 * by id within the account: display prefixes are short and not unique across accounts.
 */
import { randomUUID } from 'node:crypto';
import { toAuthenticatedKey } from '../api-keys.js';
import type { ActiveKeyRow, AuthenticatedKey, KeyMode } from '../api-keys.js';
import type { Db, Tx } from '../sql.js';

/**
 * API keys, however they are made (the dashboard, `presend keys`): labels, last use, revocation
 * by id, and the audit trail that names who did each.
 */
export interface KeyManagementRole {
  /** The key row and its `created` audit event, in one transaction. `hash` is the SHA-256 (hex) of the full key; the key itself is never stored. */
  createKey(input: { accountId: string; hash: string; displayPrefix: string; mode: KeyMode; label: string | null; actor: KeyActor; now: Date }): Promise<ApiKeyRecord>;
  /** Newest first, revoked ones included. */
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Null for an unknown id or a key of another account. */
  getKey(accountId: string, keyId: string): Promise<ApiKeyRecord | null>;
  /**
   * Revokes one key of the account with its `revoked` audit event, in one transaction. Null for
   * an unknown id or another account's key; a key already revoked is returned as it is.
   */
  revokeKey(input: { accountId: string; keyId: string; actor: KeyActor; now: Date }): Promise<ApiKeyRecord | null>;
  /** The key as authentication yields it, for work an owner starts from the dashboard; null when revoked or not the account's. */
  usableKey(accountId: string, keyId: string): Promise<AuthenticatedKey | null>;
  /** Moves last use forward (never back). */
  noteKeyUse(uses: ReadonlyArray<{ keyId: string; at: Date }>): Promise<void>;
  /** Newest first. */
  keyEvents(accountId: string, limit: number): Promise<KeyEvent[]>;
}

/** An API key as its owner and the admin commands see it: never the key, only what names it. */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** e.g. `ps_live.AbC1` — enough to recognise a key, useless to use it. */
  displayPrefix: string;
  mode: KeyMode;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface KeyEvent {
  id: string;
  keyId: string;
  displayPrefix: string;
  action: 'created' | 'revoked';
  /** The owner's email at the time, or the admin command that did it. */
  actor: string;
  at: string;
}

/** Who acts on a key: recorded in the audit trail. */
export interface KeyActor {
  /** The owner's email, or e.g. "admin command (presend keys)". */
  name: string;
}

interface ManagedKeyRow {
  id: string;
  account_id: string;
  display_prefix: string;
  mode: KeyMode;
  created_at: string;
  revoked_at: string | null;
  label: string | null;
  last_used_at: string | null;
}

const toManagedKey = (r: ManagedKeyRow): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  displayPrefix: r.display_prefix,
  mode: r.mode,
  label: r.label,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
});

interface KeyEventRow {
  id: string;
  key_id: string;
  display_prefix: string;
  action: 'created' | 'revoked';
  actor: string;
  at: string;
}

const toKeyEvent = (r: KeyEventRow): KeyEvent => ({ id: r.id, keyId: r.key_id, displayPrefix: r.display_prefix, action: r.action, actor: r.actor, at: r.at });

const KEY_COLUMNS = 'id, account_id, display_prefix, mode, created_at, revoked_at, label, last_used_at';

async function audit(tx: Tx, key: ApiKeyRecord, action: KeyEvent['action'], actor: string, at: Date): Promise<void> {
  await tx.run('INSERT INTO key_events (id, account_id, key_id, display_prefix, action, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    randomUUID(),
    key.accountId,
    key.id,
    key.displayPrefix,
    action,
    actor,
    at,
  ]);
}

export function keyManagementRole(db: Db): KeyManagementRole {
  return {
    createKey: (input) =>
      db.write(async (tx) => {
        const row = await tx.get<ManagedKeyRow>(
          `INSERT INTO api_keys (id, account_id, hash, display_prefix, mode, created_at, label) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`,
          [randomUUID(), input.accountId, input.hash, input.displayPrefix, input.mode, input.now, input.label],
        );
        const key = toManagedKey(row as ManagedKeyRow);
        await audit(tx, key, 'created', input.actor.name, input.now);
        return key;
      }),

    listKeys: async (accountId) =>
      (await db.all<ManagedKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, id`, [accountId])).map(toManagedKey),

    async getKey(accountId, keyId) {
      const row = await db.get<ManagedKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ?`, [keyId, accountId]);
      return row ? toManagedKey(row) : null;
    },

    revokeKey: (input) =>
      db.write(async (tx) => {
        const revoked = await tx.get<ManagedKeyRow>(
          `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
          [input.now, input.keyId, input.accountId],
        );
        if (revoked) {
          const key = toManagedKey(revoked);
          await audit(tx, key, 'revoked', input.actor.name, input.now);
          return key;
        }
        const existing = await tx.get<ManagedKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ?`, [input.keyId, input.accountId]);
        return existing ? toManagedKey(existing) : null;
      }),

    async usableKey(accountId, keyId) {
      const row = await db.get<ActiveKeyRow>(
        `SELECT k.id, k.account_id, k.mode, k.display_prefix, a.rate_limit_per_second, a.rate_limit_burst
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = ? AND k.account_id = ? AND k.revoked_at IS NULL`,
        [keyId, accountId],
      );
      return row ? toAuthenticatedKey(row) : null;
    },

    async noteKeyUse(uses) {
      if (uses.length === 0) return;
      await db.write(async (tx) => {
        for (const use of uses) {
          await tx.run('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)', [use.at, use.keyId, use.at]);
        }
      });
    },

    keyEvents: async (accountId, limit) =>
      (await db.all<KeyEventRow>('SELECT id, key_id, display_prefix, action, actor, at FROM key_events WHERE account_id = ? ORDER BY at DESC, id LIMIT ?', [accountId, limit])).map(
        toKeyEvent,
      ),
  };
}

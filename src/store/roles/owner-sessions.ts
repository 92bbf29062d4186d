/**
 * Role: signed-in owner sessions. Only the SHA-256 of a session's cookie token is kept, so a
 * copy of the database signs nobody in. Kept in the store, so any API node behind a balancer
 * honours a session made on another.
 */
import type { Db } from '../sql.js';
import { toOwnerUser } from './users.js';
import type { OwnerUser, UserRow } from './users.js';

/** Signed-in sessions, in the store so every API node honours them. */
export interface OwnerSessionsRole {
  /** Also forgets the user's expired sessions. */
  create(input: { idHash: string; userId: string; csrfSecret: string; now: Date; expiresAt: Date }): Promise<void>;
  /** The session, unless unknown, past `expiresAt` or unused since before `idleSince`. */
  find(idHash: string, now: Date, idleSince: Date): Promise<OwnerSession | null>;
  /** Records activity (callers do it at most every few minutes). */
  touch(idHash: string, now: Date): Promise<void>;
  end(idHash: string): Promise<void>;
  /** Sign out everywhere: every session of the user; returns how many ended. */
  endAllOf(userId: string): Promise<number>;
  setFlash(idHash: string, flash: string | null): Promise<void>;
  /** Reads and clears the flash in one transaction: a message is shown once. */
  takeFlash(idHash: string): Promise<string | null>;
}

/** A live signed-in session, with its user and account. */
export interface OwnerSession {
  idHash: string;
  user: OwnerUser;
  accountName: string;
  /** Secret the session's form tokens are made from (synchroniser token, src/dashboard/csrf.ts). */
  csrfSecret: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** A one-time message, still encrypted (src/dashboard/flash.ts), or null. */
  flash: string | null;
}

interface SessionRow extends UserRow {
  id_hash: string;
  csrf_secret: string;
  session_created_at: string;
  last_seen_at: string;
  expires_at: string;
  flash: string | null;
  account_name: string;
}

export function ownerSessionsRole(db: Db): OwnerSessionsRole {
  return {
    create: (input) =>
      db.write(async (tx) => {
        await tx.run('DELETE FROM owner_sessions WHERE user_id = ? AND expires_at <= ?', [input.userId, input.now]);
        await tx.run('INSERT INTO owner_sessions (id_hash, user_id, csrf_secret, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)', [
          input.idHash,
          input.userId,
          input.csrfSecret,
          input.now,
          input.now,
          input.expiresAt,
        ]);
      }),

    async find(idHash, now, idleSince) {
      const row = await db.get<SessionRow>(
        `SELECT u.*, s.id_hash, s.csrf_secret, s.created_at AS session_created_at, s.last_seen_at, s.expires_at, s.flash, a.name AS account_name
         FROM owner_sessions s JOIN users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
         WHERE s.id_hash = ? AND s.expires_at > ? AND s.last_seen_at > ?`,
        [idHash, now, idleSince],
      );
      if (!row) return null;
      return {
        idHash: row.id_hash,
        user: toOwnerUser(row),
        accountName: row.account_name,
        csrfSecret: row.csrf_secret,
        createdAt: row.session_created_at,
        lastSeenAt: row.last_seen_at,
        expiresAt: row.expires_at,
        flash: row.flash,
      } satisfies OwnerSession;
    },

    async touch(idHash, now) {
      await db.run('UPDATE owner_sessions SET last_seen_at = ? WHERE id_hash = ?', [now, idHash]);
    },

    async end(idHash) {
      await db.run('DELETE FROM owner_sessions WHERE id_hash = ?', [idHash]);
    },

    endAllOf: (userId) => db.run('DELETE FROM owner_sessions WHERE user_id = ?', [userId]),

    async setFlash(idHash, flash) {
      await db.run('UPDATE owner_sessions SET flash = ? WHERE id_hash = ?', [flash, idHash]);
    },

    takeFlash: (idHash) =>
      db.write(async (tx) => {
        const row = await tx.get<{ flash: string | null }>(`SELECT flash FROM owner_sessions WHERE id_hash = ?${tx.dialect.forUpdate()}`, [idHash]);
        if (!row?.flash) return null;
        await tx.run('UPDATE owner_sessions SET flash = NULL WHERE id_hash = ?', [idHash]);
        return row.flash;
      }),
  };
}

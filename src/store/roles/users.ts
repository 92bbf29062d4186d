/** Role: owners of an account and their one-time password links (docs/design.md §7). Tokens and passwords are kept as hashes only. */
import { randomUUID } from 'node:crypto';
import type { Db } from '../sql.js';

/** Owners of an account, who sign in to its dashboard (docs/design.md §7), and their one-time password links. */
export interface UsersRole {
  /** Null when the email is taken (an email names one user over all accounts). `email` is stored lower-cased. */
  createUser(input: { accountId: string; email: string; now: Date }): Promise<OwnerUser | null>;
  findUserByEmail(email: string): Promise<OwnerCredentials | null>;
  /** Whether any owner exists yet (a new install's hint to create the first). */
  anyUser(): Promise<boolean>;
  /** Issues a one-time link (only its SHA-256 is kept); the user's earlier unused links stop working. */
  issuePasswordToken(input: { userId: string; tokenHash: string; purpose: PasswordTokenPurpose; now: Date; expiresAt: Date }): Promise<void>;
  /** The user an unused, unexpired token is for, or null. */
  findPasswordToken(tokenHash: string, now: Date): Promise<{ user: OwnerUser; purpose: PasswordTokenPurpose } | null>;
  /**
   * Uses a token once, in one transaction: sets the password hash, marks the token used and ends
   * every session of the user (a reset signs out everywhere). Null when the token is unknown,
   * used or expired.
   */
  setPasswordWithToken(input: { tokenHash: string; passwordHash: string; now: Date }): Promise<OwnerUser | null>;
}

/** An owner: a person who signs in to an account's dashboard (docs/design.md §7). */
export interface OwnerUser {
  id: string;
  accountId: string;
  /** Lower-cased; unique over all accounts. */
  email: string;
  createdAt: string;
  /** Null until the one-time link has been used. */
  passwordSetAt: string | null;
}

/** With the stored password hash, for signing in only. */
export interface OwnerCredentials extends OwnerUser {
  passwordHash: string | null;
}

export type PasswordTokenPurpose = 'set' | 'reset';

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  password_hash: string | null;
  created_at: string;
  password_set_at: string | null;
}

export const toOwnerUser = (r: UserRow): OwnerUser => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  createdAt: r.created_at,
  passwordSetAt: r.password_set_at,
});

export function usersRole(db: Db): UsersRole {
  return {
    async createUser(input) {
      const row = await db.get<UserRow>('INSERT INTO users (id, account_id, email, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (email) DO NOTHING RETURNING *', [
        randomUUID(),
        input.accountId,
        input.email.toLowerCase(),
        input.now,
      ]);
      return row ? toOwnerUser(row) : null;
    },

    async findUserByEmail(email) {
      const row = await db.get<UserRow>('SELECT * FROM users WHERE email = ?', [email.toLowerCase()]);
      return row ? ({ ...toOwnerUser(row), passwordHash: row.password_hash } satisfies OwnerCredentials) : null;
    },

    anyUser: async () => (await db.get<{ id: string }>('SELECT id FROM users LIMIT 1')) !== undefined,

    issuePasswordToken: (input) =>
      db.write(async (tx) => {
        await tx.run('DELETE FROM password_tokens WHERE user_id = ? AND used_at IS NULL', [input.userId]);
        await tx.run('INSERT INTO password_tokens (token_hash, user_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', [
          input.tokenHash,
          input.userId,
          input.purpose,
          input.now,
          input.expiresAt,
        ]);
      }),

    async findPasswordToken(tokenHash, now) {
      const row = await db.get<UserRow & { purpose: PasswordTokenPurpose }>(
        `SELECT u.*, t.purpose FROM password_tokens t JOIN users u ON u.id = t.user_id
         WHERE t.token_hash = ? AND t.used_at IS NULL AND t.expires_at > ?`,
        [tokenHash, now],
      );
      return row ? { user: toOwnerUser(row), purpose: row.purpose } : null;
    },

    setPasswordWithToken: (input) =>
      db.write(async (tx) => {
        // The conditional UPDATE is the claim: of two uses racing, one changes the row.
        const token = await tx.get<{ user_id: string }>(
          'UPDATE password_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id',
          [input.now, input.tokenHash, input.now],
        );
        if (!token) return null;
        const row = await tx.get<UserRow>('UPDATE users SET password_hash = ?, password_set_at = ? WHERE id = ? RETURNING *', [
          input.passwordHash,
          input.now,
          token.user_id,
        ]);
        await tx.run('DELETE FROM owner_sessions WHERE user_id = ?', [token.user_id]);
        return row ? toOwnerUser(row) : null;
      }),
  };
}

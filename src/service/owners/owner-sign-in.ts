/**
 * Signing owners in and out (docs/design.md §7). Sessions are random 256-bit tokens held in an
 * HttpOnly cookie; the store keeps only their SHA-256, so any API node can honour them and a
 * copy of the database signs nobody in. Failed sign-ins are throttled per email and per client
 * address, counted in the store so the limit holds summed over every node (OWASP Authentication
 * Cheat Sheet: throttle per account and per source, answer alike for unknown emails).
 */
import type { Backend } from '../../store/backend.js';
import type { OwnerSession } from '../../store/roles/owner-sessions.js';
import type { OwnerUser } from '../../store/roles/users.js';
import { hashToken, newToken } from './owners.js';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';

export interface SignInPolicy {
  /** Failures counted over this window. */
  windowMs: number;
  /** Failures per email within the window before sign-in is refused without checking the password. */
  perEmail: number;
  /** Failures per client address within the window (one address may serve several people). */
  perAddress: number;
  /** A session ends this long after sign-in … */
  sessionLifetimeMs: number;
  /** … or after this long without use. */
  idleTimeoutMs: number;
}

export const DEFAULT_SIGN_IN_POLICY: SignInPolicy = {
  windowMs: 15 * 60_000,
  perEmail: 5,
  perAddress: 30,
  sessionLifetimeMs: 7 * 24 * 3_600_000,
  idleTimeoutMs: 8 * 3_600_000,
};

/** Asked to come back this soon when the hashing queue was full (src/service/owners/passwords.ts). */
const BUSY_RETRY_AFTER_SECONDS = 5;

/** Activity is written at most this often per session. */
const TOUCH_EVERY_MS = 5 * 60_000;

export type SignInOutcome =
  | { kind: 'signed_in'; token: string; user: OwnerUser; expiresAt: Date }
  | { kind: 'refused' }
  /** `failures`: the email or the address has used its attempts; `busy`: too many passwords are being checked right now. */
  | { kind: 'throttled'; reason: 'failures' | 'busy'; retryAfterSeconds: number };

export type SetPasswordOutcome =
  | { kind: 'set'; user: OwnerUser }
  | { kind: 'invalid_link' }
  | { kind: 'weak'; message: string }
  /** The hashing queue was full (the same link sent many times at once): nothing was set. */
  | { kind: 'busy'; retryAfterSeconds: number };

export class OwnerAuth {
  private readonly now: () => Date;
  private readonly policy: SignInPolicy;

  constructor(
    private readonly backend: Pick<Backend, 'users' | 'ownerSessions' | 'loginThrottle'>,
    options: { now?: () => Date; policy?: Partial<SignInPolicy> } = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.policy = { ...DEFAULT_SIGN_IN_POLICY, ...options.policy };
  }

  async signIn(email: string, password: string, clientAddress: string): Promise<SignInOutcome> {
    const now = this.now();
    const emailScope = `email:${email.trim().toLowerCase()}`;
    const since = new Date(now.getTime() - this.policy.windowMs);
    // Reserved before the hash, counted with the reservations of attempts still being checked:
    // attempts fired at once get at most the limit's worth of checks between them.
    const attempt = await this.backend.loginThrottle.reserve(
      [
        { scope: emailScope, limit: this.policy.perEmail },
        { scope: `ip:${clientAddress}`, limit: this.policy.perAddress },
      ],
      now,
      since,
    );
    if (attempt === null) return { kind: 'throttled', reason: 'failures', retryAfterSeconds: Math.ceil(this.policy.windowMs / 1000) };
    const user = await this.backend.users.findUserByEmail(email.trim());
    // The hash runs for unknown emails too: the answer takes as long either way.
    const check = await verifyPassword(password, user?.passwordHash ?? null, clientAddress);
    if (check === 'busy') {
      // Nothing was checked: the attempt does not count against the owner.
      await this.backend.loginThrottle.release(attempt);
      return { kind: 'throttled', reason: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    }
    // A wrong password leaves its reservation as the failure it records.
    if (!user || check === 'mismatch') return { kind: 'refused' };
    await this.backend.loginThrottle.release(attempt);
    await this.backend.loginThrottle.clear(emailScope);
    const token = newToken();
    const expiresAt = new Date(now.getTime() + this.policy.sessionLifetimeMs);
    await this.backend.ownerSessions.create({ idHash: hashToken(token), userId: user.id, csrfSecret: newToken(), now, expiresAt });
    const { passwordHash: _omitted, ...owner } = user;
    return { kind: 'signed_in', token, user: owner, expiresAt };
  }

  /** The live session a cookie token names, or null. */
  async session(token: string): Promise<OwnerSession | null> {
    const now = this.now();
    const found = await this.backend.ownerSessions.find(hashToken(token), now, new Date(now.getTime() - this.policy.idleTimeoutMs));
    if (found && now.getTime() - Date.parse(found.lastSeenAt) > TOUCH_EVERY_MS) await this.backend.ownerSessions.touch(found.idHash, now);
    return found;
  }

  signOut(session: OwnerSession): Promise<void> {
    return this.backend.ownerSessions.end(session.idHash);
  }

  /** Ends every session of the owner, on every node, this one included. */
  signOutEverywhere(session: OwnerSession): Promise<number> {
    return this.backend.ownerSessions.endAllOf(session.user.id);
  }

  /** The owner a set-password link is for, while it is usable. */
  async linkOwner(linkToken: string): Promise<OwnerUser | null> {
    return (await this.backend.users.findPasswordToken(hashToken(linkToken), this.now()))?.user ?? null;
  }

  /** Uses a link once: the password is set and every session of the owner ends. */
  async setPassword(linkToken: string, password: string): Promise<SetPasswordOutcome> {
    const problem = passwordProblem(password);
    if (problem) return { kind: 'weak', message: problem };
    if (!(await this.linkOwner(linkToken))) return { kind: 'invalid_link' };
    const tokenHash = hashToken(linkToken);
    // In the link's own turn: only its holder can ask, and many asks at once are shed, not queued.
    const passwordHash = await hashPassword(password, `link:${tokenHash}`);
    if (passwordHash === null) return { kind: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    const user = await this.backend.users.setPasswordWithToken({ tokenHash, passwordHash, now: this.now() });
    return user ? { kind: 'set', user } : { kind: 'invalid_link' };
  }
}

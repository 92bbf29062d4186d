/**
 * Owners of an account (docs/design.md §7): `presend users create` and `presend users
 * reset-password` make a one-time link to set the password. Only the link token's SHA-256 is
 * stored; the link is printed once, for the administrator to hand over.
 */
import { createHash, randomBytes } from 'node:crypto';
import { parseAddress } from '../../core/syntax/address.js';
import type { Backend } from '../../store/backend.js';
import type { OwnerUser, PasswordTokenPurpose } from '../../store/roles/users.js';
import { refused } from '../operations/admin.js';
import type { AdminOutcome } from '../operations/admin.js';

/** How long a link stays usable: long enough to reach a new owner, short for a reset. */
const LINK_LIFETIME_MS: Record<PasswordTokenPurpose, number> = { set: 72 * 3_600_000, reset: 3_600_000 };

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** 256 random bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function passwordLink(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/dashboard/set-password/${token}`;
}

async function issueLink(backend: Pick<Backend, 'users'>, user: OwnerUser, purpose: PasswordTokenPurpose, baseUrl: string, now: Date): Promise<{ link: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS[purpose]);
  await backend.users.issuePasswordToken({ userId: user.id, tokenHash: hashToken(token), purpose, now, expiresAt });
  return { link: passwordLink(baseUrl, token), expiresAt };
}

export interface OwnerLink {
  user: OwnerUser;
  link: string;
  expiresAt: Date;
}

/**
 * Adds an owner to an account and issues the link to set the password. With `createAccount`,
 * an account that does not exist yet is created first (with `credits`), so a new install's
 * first owner takes one command.
 */
export async function createOwner(
  backend: Pick<Backend, 'accounts' | 'users'>,
  input: { accountName: string; email: string; baseUrl: string; now?: Date; createAccount?: { credits: number } },
): Promise<AdminOutcome<OwnerLink & { accountCreated: boolean }>> {
  const now = input.now ?? new Date();
  const email = input.email.trim();
  if (!parseAddress(email).ok) return refused('invalid_argument', `not an email address: "${email}"`);
  if (input.accountName.trim() === '') return refused('invalid_argument', 'the account name must not be empty');
  let account = await backend.accounts.findAccountByName(input.accountName);
  let accountCreated = false;
  if (!account && input.createAccount) {
    account = await backend.accounts.createAccount({ name: input.accountName, credits: input.createAccount.credits, now });
    accountCreated = account !== null;
  }
  if (!account) return refused('not_found', `no account named "${input.accountName}" (add --create-account to create it)`);
  const user = await backend.users.createUser({ accountId: account.id, email, now });
  if (!user) return refused('already_exists', `an owner with the email ${email.toLowerCase()} already exists`);
  return { kind: 'done', value: { user, accountCreated, ...(await issueLink(backend, user, 'set', input.baseUrl, now)) } };
}

/** A new link for an owner who forgot the password; the old password works until the link is used. */
export async function resetPasswordLink(backend: Pick<Backend, 'users'>, input: { email: string; baseUrl: string; now?: Date }): Promise<AdminOutcome<OwnerLink>> {
  const now = input.now ?? new Date();
  const user = await backend.users.findUserByEmail(input.email.trim());
  if (!user) return refused('not_found', `no owner with the email ${input.email.trim().toLowerCase()}`);
  return { kind: 'done', value: { user, ...(await issueLink(backend, user, user.passwordSetAt === null ? 'set' : 'reset', input.baseUrl, now)) } };
}

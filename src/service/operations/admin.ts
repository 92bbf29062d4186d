/**
 * The local admin operations of docs/design.md §3 (accounts, keys, credits, list imports), used by
 * the `presend` admin commands. A refusal is data, returned, never thrown: `{kind: 'refused',
 * reason, message}`, the reason one of a few words; the CLI decides what each means for a
 * process (its exit code, src/cli/output/admin-command.ts). What is thrown is a failure that is
 * no refusal: a store that cannot be reached, a bug.
 */
import type { Account } from '../../store/roles/accounts.js';
import type { ApiKeyRecord } from '../../store/roles/key-management.js';
import type { CreditBalance } from '../../store/roles/ledger.js';
import type { KeyMode } from '../../store/api-keys.js';
import type { ListRecord } from '../../store/roles/lists.js';
import type { Backend } from '../../store/backend.js';
import type { ListOverview } from '../../store/roles/list-files.js';
import { ListImportFailed, ListTooLarge } from '../../store/roles/lists.js';
import { displayPrefixOf, generateApiKey, keyShape } from '../keys/key-format.js';
import type { LeaseKeeper } from '../leases/lease-keeper.js';

/**
 * Why an admin operation did not happen: `invalid_argument` (a value out of its range),
 * `not_found` (no such account or key), `already_exists`, `unreadable_input` (the entries of a
 * list could not be read to the end), `empty_input` (no address at all).
 */
export type AdminRefusalReason = 'invalid_argument' | 'not_found' | 'already_exists' | 'unreadable_input' | 'empty_input';

export interface AdminRefusal {
  kind: 'refused';
  reason: AdminRefusalReason;
  message: string;
}

export type AdminOutcome<T> = { kind: 'done'; value: T } | AdminRefusal;

export const refused = (reason: AdminRefusalReason, message: string): AdminRefusal => ({ kind: 'refused', reason, message });
const done = <T>(value: T): AdminOutcome<T> => ({ kind: 'done', value });

const isWholeNumber = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

export async function account(backend: Backend, name: string): Promise<AdminOutcome<Account>> {
  const found = await backend.accounts.findAccountByName(name);
  return found ? done(found) : refused('not_found', `no account named "${name}"`);
}

export async function createAccount(backend: Backend, name: string, credits: number): Promise<AdminOutcome<{ account: Account; balance: CreditBalance }>> {
  if (name.trim() === '') return refused('invalid_argument', 'the account name must not be empty');
  if (!isWholeNumber(credits)) return refused('invalid_argument', `credits must be a whole number ≥ 0, got ${credits}`);
  const created = await backend.accounts.createAccount({ name: name.trim(), credits, now: new Date() });
  if (!created) return refused('already_exists', `an account named "${name}" already exists`);
  return done({ account: created, balance: await backend.ledger.getBalance(created.id) });
}

/** Who the audit trail names for keys made or revoked by `presend keys`. */
const ADMIN_KEYS = { name: 'admin command (presend keys)' };

export async function createKey(backend: Backend, accountName: string, mode: KeyMode): Promise<AdminOutcome<{ key: string; record: ApiKeyRecord }>> {
  const a = await account(backend, accountName);
  if (a.kind === 'refused') return a;
  const k = generateApiKey(mode);
  // Through key management, so the dashboard's audit trail names the admin command too.
  const record = await backend.keyManagement.createKey({ accountId: a.value.id, hash: k.hash, displayPrefix: k.displayPrefix, mode, label: null, actor: ADMIN_KEYS, now: new Date() });
  return done({ key: k.key, record });
}

export async function listKeys(backend: Backend, accountName: string): Promise<AdminOutcome<ApiKeyRecord[]>> {
  const a = await account(backend, accountName);
  // Oldest first, as a listing of what was made over time reads.
  return a.kind === 'refused' ? a : done((await backend.keyManagement.listKeys(a.value.id)).reverse());
}

/**
 * The active keys of one account whose display prefix starts with `prefix` (a whole key given
 * by mistake stands for its display prefix): what `keys revoke` shows before it asks.
 */
export async function keysToRevoke(backend: Backend, accountName: string, prefix: string): Promise<AdminOutcome<ApiKeyRecord[]>> {
  // At least the mode part: `ps_test.` alone is every sandbox key of the account, which the
  // listing and the question before revoking make plain.
  if (!/^ps_(live|test)\.[0-9A-Za-z]*$/.test(prefix)) return refused('invalid_argument', 'give a key display prefix such as ps_live.AbC123');
  const wanted = keyShape(prefix) ? displayPrefixOf(prefix) : prefix;
  const keys = await listKeys(backend, accountName);
  if (keys.kind === 'refused') return keys;
  const matching = keys.value.filter((k) => k.revokedAt === null && k.displayPrefix.startsWith(wanted));
  if (matching.length === 0) return refused('not_found', `no active key of account "${accountName}" starts with ${prefix}`);
  return done(matching);
}

/** Revokes exactly these keys, by id within their account, each with its audit event. */
export async function revokeKeys(backend: Backend, keys: readonly ApiKeyRecord[]): Promise<number> {
  const now = new Date();
  let revoked = 0;
  for (const key of keys) {
    const done = await backend.keyManagement.revokeKey({ accountId: key.accountId, keyId: key.id, actor: ADMIN_KEYS, now });
    if (done?.revokedAt === now.toISOString()) revoked += 1;
  }
  return revoked;
}

/** Per-account token bucket (docs/design.md §4); null for both restores the service default. */
export async function setRateLimit(backend: Backend, accountName: string, perSecond: number | null, burst: number | null): Promise<AdminOutcome<Account>> {
  if ((perSecond === null) !== (burst === null)) return refused('invalid_argument', 'give both --per-second and --burst, or --default');
  if (perSecond !== null && burst !== null && !(Number.isSafeInteger(perSecond) && Number.isSafeInteger(burst) && perSecond >= 1 && burst >= 1)) {
    return refused('invalid_argument', 'rates must be whole numbers of at least 1');
  }
  const a = await account(backend, accountName);
  if (a.kind === 'refused') return a;
  await backend.accounts.setAccountRateLimit(a.value.id, perSecond, burst);
  return done({ ...a.value, rateLimitPerSecond: perSecond, rateLimitBurst: burst });
}

export async function grantCredits(backend: Backend, accountName: string, credits: number): Promise<AdminOutcome<CreditBalance>> {
  if (!isWholeNumber(credits)) return refused('invalid_argument', `credits must be a whole number ≥ 0, got ${credits}`);
  const a = await account(backend, accountName);
  return a.kind === 'refused' ? a : done(await backend.ledger.grantCredits(a.value.id, credits, new Date()));
}

/** An error met while reading the entries, told apart from one met while storing them. */
class UnreadableEntries extends Error {}

/**
 * importing → ready, or failed (docs/design.md §3) through the lists role's import. Entries are stored
 * as given; an invalid one becomes a `rejected` item when the list is verified (docs/design.md §5).
 * Entries that cannot be read to the end, or none at all, are a refusal naming the failed list;
 * a store failure is thrown.
 */
export async function importList(
  backend: Backend,
  accountName: string,
  entries: AsyncIterable<string>,
  label: string | null,
  limits: { maxEntries?: number; keeper?: LeaseKeeper } = {},
): Promise<AdminOutcome<ListRecord>> {
  const a = await account(backend, accountName);
  if (a.kind === 'refused') return a;
  let read = 0;
  async function* chunks(): AsyncGenerator<string[]> {
    let chunk: string[] = [];
    try {
      for await (const email of entries) {
        chunk.push(email);
        read += 1;
        if (chunk.length === 5000) {
          yield chunk;
          chunk = [];
        }
      }
    } catch (err) {
      throw new UnreadableEntries(err instanceof Error ? err.message : String(err), { cause: err });
    }
    if (chunk.length > 0) yield chunk;
  }
  try {
    const { keeper } = limits;
    return done(
      await backend.lists.importList({
        accountId: a.value.id,
        name: label,
        now: new Date(),
        entries: chunks(),
        ...(limits.maxEntries !== undefined ? { maxEntries: limits.maxEntries } : {}),
        // Leased while it runs: killed mid-way, it ends failed once the lease lapses.
        ...(keeper ? { lease: keeper.grant(), onCreated: (list: ListRecord) => void keeper.hold('listImport', list.id) } : {}),
      }),
    );
  } catch (err) {
    if (!(err instanceof ListImportFailed)) throw err;
    if (err.cause instanceof ListTooLarge) return refused('invalid_argument', err.message);
    if (err.cause instanceof UnreadableEntries) return refused('unreadable_input', err.message);
    if (read === 0) return refused('empty_input', err.message);
    throw err;
  }
}

/** The lists of an account, newest first (`presend lists list`); imports whose process died are marked failed first. */
export async function listLists(backend: Backend, accountName: string, limit = 1_000): Promise<AdminOutcome<ListOverview[]>> {
  const a = await account(backend, accountName);
  if (a.kind === 'refused') return a;
  await backend.leases.endLapsed('listImport', new Date());
  return done(await backend.listFiles.listLists(a.value.id, limit));
}

/** The list `listId` of the account, to show before deleting it. */
export async function listToDelete(backend: Backend, accountName: string, listId: string): Promise<AdminOutcome<ListRecord>> {
  const a = await account(backend, accountName);
  if (a.kind === 'refused') return a;
  const list = await backend.lists.getList(a.value.id, listId);
  return list ? done(list) : refused('not_found', `account "${accountName}" has no list ${listId}`);
}

/** Deletes the list with its entries, kept file and bad rows (the entries in small transactions). */
export async function deleteList(backend: Backend, list: ListRecord): Promise<boolean> {
  return backend.listFiles.deleteList(list.accountId, list.id);
}

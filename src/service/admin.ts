/**
 * The local admin operations of docs/design.md §3 (accounts, keys, credits, list imports, purge),
 * used by the `presend` admin commands. Refusals are data (`AdminRefusal`), so the CLI can map
 * them to exit codes and messages without parsing text.
 */
import { loadCommandConfig } from '../config.js';
import type { PresendConfig } from '../config.js';
import { TableError } from '../files/index.js';
import type { Account, ApiKeyRecord, CreditBalance, KeyMode, ListRecord } from '../store/store.js';
import type { Backend } from '../store/backend.js';
import { openBackend } from '../store/open-backend.js';
import { displayPrefixOf, generateApiKey, keyShape } from './keys.js';

export class AdminRefusal extends Error {
  constructor(
    message: string,
    /** 2 = usage (bad argument), 6 = an input file that cannot be read as a table, 1 = anything else. */
    readonly exitCode: 1 | 2 | 6 = 1,
  ) {
    super(message);
    this.name = 'AdminRefusal';
  }
}

/** Opens the backend the configuration names (`--database` or PRESEND_DATABASE_URL), runs `fn`, closes it. */
export async function withBackend<T>(config: PresendConfig, fn: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await openBackend(config.databaseUrl, { config });
  try {
    return await fn(backend);
  } finally {
    await backend.close();
  }
}

async function account(backend: Backend, name: string): Promise<Account> {
  const found = await backend.accounts.findAccountByName(name);
  if (!found) throw new AdminRefusal(`no account named "${name}"`);
  return found;
}

export function parseCredits(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new AdminRefusal(`credits must be a whole number ≥ 0, got "${text}"`, 2);
  const n = Number(text.trim());
  if (!Number.isSafeInteger(n)) throw new AdminRefusal(`credits too large: ${text}`, 2);
  return n;
}

export async function createAccount(backend: Backend, name: string, credits: number): Promise<{ account: Account; balance: CreditBalance }> {
  if (name.trim() === '') throw new AdminRefusal('the account name must not be empty', 2);
  const created = await backend.accounts.createAccount({ name: name.trim(), credits, now: new Date() });
  if (!created) throw new AdminRefusal(`an account named "${name}" already exists`);
  return { account: created, balance: await backend.ledger.getBalance(created.id) };
}

/** Who the audit trail names for keys made or revoked by `presend keys`. */
const ADMIN_KEYS = { name: 'admin command (presend keys)' };

export async function createKey(backend: Backend, accountName: string, mode: KeyMode): Promise<{ key: string; record: ApiKeyRecord }> {
  const a = await account(backend, accountName);
  const k = generateApiKey(mode);
  // Through key management, so the dashboard's audit trail names the admin command too.
  const record = await backend.keyManagement.createKey({ accountId: a.id, hash: k.hash, displayPrefix: k.displayPrefix, mode, label: null, actor: ADMIN_KEYS, now: new Date() });
  return { key: k.key, record };
}

export async function listKeys(backend: Backend, accountName: string): Promise<ApiKeyRecord[]> {
  return backend.accounts.listApiKeys((await account(backend, accountName)).id);
}

/**
 * The active keys of one account whose display prefix starts with `prefix` (a whole key given
 * by mistake stands for its display prefix): what `keys revoke` shows before it asks.
 */
export async function keysToRevoke(backend: Backend, accountName: string, prefix: string): Promise<ApiKeyRecord[]> {
  // At least the mode part: `ps_test.` alone is every sandbox key of the account, which the
  // listing and the question before revoking make plain.
  if (!/^ps_(live|test)\.[0-9A-Za-z]*$/.test(prefix)) throw new AdminRefusal('give a key display prefix such as ps_live.AbC123', 2);
  const wanted = keyShape(prefix) ? displayPrefixOf(prefix) : prefix;
  const keys = await listKeys(backend, accountName);
  const matching = keys.filter((k) => k.revokedAt === null && k.displayPrefix.startsWith(wanted));
  if (matching.length === 0) throw new AdminRefusal(`no active key of account "${accountName}" starts with ${prefix}`);
  return matching;
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
export async function setRateLimit(backend: Backend, accountName: string, perSecond: number | null, burst: number | null): Promise<Account> {
  if ((perSecond === null) !== (burst === null)) throw new AdminRefusal('give both --per-second and --burst, or --default', 2);
  if (perSecond !== null && burst !== null && (perSecond < 1 || burst < 1)) throw new AdminRefusal('rates must be at least 1', 2);
  const a = await account(backend, accountName);
  await backend.accounts.setAccountRateLimit(a.id, perSecond, burst);
  return { ...a, rateLimitPerSecond: perSecond, rateLimitBurst: burst };
}

export async function grantCredits(backend: Backend, accountName: string, credits: number): Promise<CreditBalance> {
  return backend.ledger.grantCredits((await account(backend, accountName)).id, credits, new Date());
}

/**
 * importing → ready, or failed when the entries cannot be read to the end (the file is read
 * by src/files, the same reader as `presend batch FILE`). Entries are stored as given; an
 * invalid one becomes a `rejected` item when the list is verified (docs/design.md §5).
 */
export async function importList(backend: Backend, accountName: string, entries: AsyncIterable<string>, label: string | null): Promise<ListRecord> {
  const a = await account(backend, accountName);
  const list = await backend.lists.createList({ accountId: a.id, name: label, now: new Date() });
  try {
    let chunk: string[] = [];
    let count = 0;
    for await (const email of entries) {
      chunk.push(email);
      count += 1;
      if (chunk.length === 5000) {
        await backend.lists.appendListEntries(list.id, chunk);
        chunk = [];
      }
    }
    if (chunk.length > 0) await backend.lists.appendListEntries(list.id, chunk);
    if (count === 0) throw new AdminRefusal('no addresses in the file', 6);
    return await backend.lists.finishListImport(list.id, 'ready');
  } catch (err) {
    await backend.lists.finishListImport(list.id, 'failed');
    const code = err instanceof AdminRefusal ? err.exitCode : err instanceof TableError ? 6 : 1;
    throw new AdminRefusal(`list import failed (list ${list.id} is marked failed): ${err instanceof Error ? err.message : String(err)}`, code);
  }
}

/** Output of an admin command: text for people, or the same facts as JSON with --json. */
export interface AdminOutput {
  text: string;
  json: unknown;
}

/**
 * Runs one admin command: reads the configuration (`--database` over PRESEND_DATABASE_URL),
 * opens the backend, prints the result, maps refusals to exit codes (0 ok, 2 usage, 1 other).
 * Used by the thin command modules in src/cli/commands.
 */
export async function runAdmin(
  flags: { database?: string; json?: boolean },
  fn: (backend: Backend, config: PresendConfig) => Promise<AdminOutput>,
): Promise<void> {
  try {
    const config = loadCommandConfig({ PRESEND_DATABASE_URL: flags.database });
    const out = await withBackend(config, (backend) => fn(backend, config));
    process.stdout.write(flags.json ? JSON.stringify(out.json, null, 2) + '\n' : out.text + '\n');
  } catch (err) {
    const code = err instanceof AdminRefusal ? err.exitCode : 1;
    const message = err instanceof Error ? err.message : String(err);
    if (flags.json) process.stdout.write(JSON.stringify({ error: message }) + '\n');
    process.stderr.write(`presend: ${message}\n`);
    process.exitCode = code;
  }
}

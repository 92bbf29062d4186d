/**
 * The Store contract on SQLite (better-sqlite3): one connection, WAL, one transaction per method —
 * the hot write paths (verifications, batch creation, item results, lease renewals) share a
 * group commit (SqliteContext.grouped), each method still atomic in its own savepoint.
 */
import { SqliteContext } from './context.js';
import { KeyCache } from './key-cache.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { migrateSqlite, openSqlite } from './database.js';
import * as accounts from './accounts.js';
import * as verifications from './verifications.js';
import * as batches from './batches.js';
import { addDays } from '../billing-rules.js';
import type { Store, PurgeOutcome } from '../store.js';
import { takeToken } from '../token-bucket.js';
import type { BucketState } from '../token-bucket.js';

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly ctx: SqliteContext;
  private closed = false;
  private readonly buckets = new Map<string, BucketState>();
  private readonly keys: KeyCache;
  private readonly checkpointer: WalCheckpointer | null;

  /** `longRunning`: a serving process — checkpoint the WAL from a background thread (not for `:memory:`). */
  constructor(databaseUrl: string, options: { longRunning?: boolean } = {}) {
    this.ctx = new SqliteContext(openSqlite(databaseUrl));
    this.keys = new KeyCache(this.ctx.db);
    this.checkpointer = options.longRunning && !this.ctx.db.memory ? new WalCheckpointer(this.ctx.db) : null;
  }

  /** INTERIM (step 2 of #11 replaces this store): the connection the dashboard's roles share. */
  get connection(): SqliteContext['db'] {
    return this.ctx.db;
  }

  /** INTERIM: a key revoked outside this store's methods must stop authenticating at once. */
  forgetCachedKeys(): void {
    this.keys.clear();
  }

  async migrate(): Promise<void> {
    migrateSqlite(this.ctx.db);
  }
  async ping(): Promise<void> {
    this.ctx.stmt('SELECT 1').get();
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ctx.flush(); // writes queued for the group commit are committed, not dropped
    await this.checkpointer?.close();
    this.ctx.db.close();
  }

  createAccount: Store['createAccount'] = async (input) => accounts.createAccount(this.ctx, input);
  findAccountByName: Store['findAccountByName'] = async (name) => accounts.findAccountByName(this.ctx, name);
  setAccountRateLimit: Store['setAccountRateLimit'] = async (accountId, perSecond, burst) => {
    this.keys.clear();
    this.ctx.stmt('UPDATE accounts SET rate_limit_per_second = ?, rate_limit_burst = ? WHERE id = ?').run(perSecond, burst, accountId);
  };
  grantCredits: Store['grantCredits'] = async (accountId, credits, now) => accounts.grantCredits(this.ctx, accountId, credits, now);
  getBalance: Store['getBalance'] = async (accountId) => accounts.balance(this.ctx, accountId);
  createApiKey: Store['createApiKey'] = async (input) => accounts.createApiKey(this.ctx, input);
  listApiKeys: Store['listApiKeys'] = async (accountId) => accounts.listApiKeys(this.ctx, accountId);
  revokeApiKeys: Store['revokeApiKeys'] = async (prefix, now) => {
    this.keys.clear();
    return accounts.revokeApiKeys(this.ctx, prefix, now);
  };
  findActiveKey: Store['findActiveKey'] = async (hash) => this.keys.get(hash, (h) => accounts.findActiveKey(this.ctx, h));
  /**
   * Buckets live in memory: the SQLite store serves one `presend serve` process (several API
   * nodes need PostgreSQL, DESIGN.md §1), and a write transaction per request was the largest
   * single cost of an API call (BENCHMARKS.md §3). A restart refills every bucket, which only
   * ever errs towards letting a client through.
   */
  consumeRateToken: Store['consumeRateToken'] = async (input) => {
    const { state, decision } = takeToken(this.buckets.get(input.keyId), input.now.getTime(), input.perSecond, input.burst);
    this.buckets.set(input.keyId, state);
    return decision;
  };

  createList: Store['createList'] = async (input) => accounts.createList(this.ctx, input);
  appendListEntries: Store['appendListEntries'] = async (listId, emails) => accounts.appendListEntries(this.ctx, listId, emails);
  finishListImport: Store['finishListImport'] = async (listId, state) => accounts.finishListImport(this.ctx, listId, state);
  getList: Store['getList'] = async (accountId, listId) => accounts.getList(this.ctx, accountId, listId);
  readListEntries: Store['readListEntries'] = async (listId) => accounts.readListEntries(this.ctx, listId);

  startVerification: Store['startVerification'] = (input) => this.ctx.grouped(() => verifications.startVerification(this.ctx, input));
  completeVerification: Store['completeVerification'] = (input) => this.ctx.grouped(() => verifications.completeVerification(this.ctx, input));
  failVerification: Store['failVerification'] = (input) => this.ctx.grouped(() => verifications.failVerification(this.ctx, input));
  getVerification: Store['getVerification'] = async (accountId, id) => verifications.getVerification(this.ctx, accountId, id);
  failStaleVerifications: Store['failStaleVerifications'] = async (olderThan, now) =>
    verifications.failStaleVerifications(this.ctx, olderThan, now);
  renewVerificationLeases: Store['renewVerificationLeases'] = (ids, until) => this.ctx.grouped(() => verifications.renewVerificationLeases(this.ctx, ids, until));
  claimAbandonedVerifications: Store['claimAbandonedVerifications'] = async (input) => verifications.claimAbandonedVerifications(this.ctx, input);

  createBatchRequest: Store['createBatchRequest'] = (input) => this.ctx.grouped(() => batches.createBatchRequest(this.ctx, input));
  getRequest: Store['getRequest'] = async (accountId, requestId) => batches.getRequest(this.ctx, accountId, requestId);
  claimItems: Store['claimItems'] = async (input) => batches.claimItems(this.ctx, input);
  renewLeases: Store['renewLeases'] = (owner, ids, until) => this.ctx.grouped(() => batches.renewLeases(this.ctx, owner, ids, until));
  releaseClaims: Store['releaseClaims'] = async (owner, ids) => batches.releaseClaims(this.ctx, owner, ids);
  recordItemResult: Store['recordItemResult'] = (input) => this.ctx.grouped(() => batches.recordItemResult(this.ctx, input));
  getResultsSlice: Store['getResultsSlice'] = async (input) => batches.getResultsSlice(this.ctx, input);
  queueDepth: Store['queueDepth'] = async () => batches.queueDepth(this.ctx);

  async purgeExpired(now: Date, verificationRetentionDays: number): Promise<PurgeOutcome> {
    const iso = now.toISOString();
    const verificationCutoff = addDays(now, -verificationRetentionDays).toISOString();
    return this.ctx.write(() => ({
      requests: this.ctx.stmt('DELETE FROM requests WHERE retention_expires_at IS NOT NULL AND retention_expires_at <= ?').run(iso).changes,
      verifications: this.ctx.stmt("DELETE FROM verifications WHERE state != 'running' AND finished_at <= ?").run(verificationCutoff).changes,
      idempotencyRecords: this.ctx.stmt('DELETE FROM idempotency_records WHERE expires_at <= ?').run(iso).changes,
    }));
  }
}

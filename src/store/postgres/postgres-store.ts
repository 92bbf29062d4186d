/**
 * The Store contract on PostgreSQL (pg Pool): one transaction per method, row locks and
 * conditional UPDATEs instead of process memory, so any number of API nodes and workers can
 * share one database (DESIGN.md §1 scale-out).
 */
import type pg from 'pg';
import { createPool, PgDatabase } from './database.js';
import type { PoolSettings } from './database.js';
import * as accounts from './accounts.js';
import * as verifications from './verifications.js';
import * as batches from './batches.js';
import * as items from './items.js';
import { ResultWriter } from './result-batch.js';
import { addDays } from '../billing-rules.js';
import type { PurgeOutcome, Store } from '../store.js';

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly db: PgDatabase;
  private readonly results: ResultWriter;
  private closed = false;

  constructor(pool: pg.Pool) {
    this.db = new PgDatabase(pool);
    this.results = new ResultWriter(this.db);
  }

  /** The pool, for adapters that share it (the SessionLimiter and FactsCache of the workers). */
  get pool(): pg.Pool {
    return this.db.pool;
  }

  async migrate(): Promise<void> {
    await this.db.migrate();
  }
  async ping(): Promise<void> {
    await this.db.q('SELECT 1');
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.results.idle();
    await this.db.pool.end();
  }

  createAccount: Store['createAccount'] = (input) => accounts.createAccount(this.db, input);
  findAccountByName: Store['findAccountByName'] = (name) => accounts.findAccountByName(this.db, name);
  setAccountRateLimit: Store['setAccountRateLimit'] = async (accountId, perSecond, burst) => {
    await this.db.q('UPDATE accounts SET rate_limit_per_second = $2, rate_limit_burst = $3 WHERE id = $1', [accountId, perSecond, burst]);
  };
  grantCredits: Store['grantCredits'] = (accountId, credits, now) => accounts.grantCredits(this.db, accountId, credits, now);
  getBalance: Store['getBalance'] = (accountId) => accounts.balance(this.db, accountId);
  createApiKey: Store['createApiKey'] = (input) => accounts.createApiKey(this.db, input);
  listApiKeys: Store['listApiKeys'] = (accountId) => accounts.listApiKeys(this.db, accountId);
  revokeApiKeys: Store['revokeApiKeys'] = (prefix, now) => accounts.revokeApiKeys(this.db, prefix, now);
  findActiveKey: Store['findActiveKey'] = (hash) => accounts.findActiveKey(this.db, hash);
  consumeRateToken: Store['consumeRateToken'] = (input) => accounts.consumeRateToken(this.db, input);

  createList: Store['createList'] = (input) => accounts.createList(this.db, input);
  appendListEntries: Store['appendListEntries'] = (listId, emails) => accounts.appendListEntries(this.db, listId, emails);
  finishListImport: Store['finishListImport'] = (listId, state) => accounts.finishListImport(this.db, listId, state);
  getList: Store['getList'] = (accountId, listId) => accounts.getList(this.db, accountId, listId);
  readListEntries: Store['readListEntries'] = (listId) => accounts.readListEntries(this.db, listId);

  startVerification: Store['startVerification'] = (input) => verifications.startVerification(this.db, input);
  completeVerification: Store['completeVerification'] = (input) => verifications.completeVerification(this.db, input);
  failVerification: Store['failVerification'] = (input) => verifications.failVerification(this.db, input);
  getVerification: Store['getVerification'] = (accountId, id) => verifications.getVerification(this.db, accountId, id);
  failStaleVerifications: Store['failStaleVerifications'] = (olderThan, now) => verifications.failStaleVerifications(this.db, olderThan, now);
  renewVerificationLeases: Store['renewVerificationLeases'] = (ids, until) => verifications.renewVerificationLeases(this.db, ids, until);
  claimAbandonedVerifications: Store['claimAbandonedVerifications'] = (input) => verifications.claimAbandonedVerifications(this.db, input);

  createBatchRequest: Store['createBatchRequest'] = (input) => batches.createBatchRequest(this.db, input);
  getRequest: Store['getRequest'] = (accountId, requestId) => batches.getRequest(this.db, accountId, requestId);
  claimItems: Store['claimItems'] = (input) => items.claimItems(this.db, input);
  renewLeases: Store['renewLeases'] = (owner, ids, until) => items.renewLeases(this.db, owner, ids, until);
  releaseClaims: Store['releaseClaims'] = (owner, ids) => items.releaseClaims(this.db, owner, ids);
  recordItemResult: Store['recordItemResult'] = (input) => this.results.record(input);
  getResultsSlice: Store['getResultsSlice'] = (input) => batches.getResultsSlice(this.db, input);
  queueDepth: Store['queueDepth'] = () => batches.queueDepth(this.db);

  purgeExpired(now: Date, verificationRetentionDays: number): Promise<PurgeOutcome> {
    const verificationCutoff = addDays(now, -verificationRetentionDays);
    return this.db.tx(async (tx) => {
      const outcome: PurgeOutcome = {
        requests: await tx.count('DELETE FROM requests WHERE retention_expires_at IS NOT NULL AND retention_expires_at <= $1', [now]),
        verifications: await tx.count("DELETE FROM verifications WHERE state <> 'running' AND finished_at <= $1", [verificationCutoff]),
        idempotencyRecords: await tx.count('DELETE FROM idempotency_records WHERE expires_at <= $1', [now]),
      };
      // Shared engine state: expired domain facts, and MX session slots left behind by dead workers.
      await tx.q('DELETE FROM facts_cache WHERE expires_at < clock_timestamp()');
      await tx.q('DELETE FROM mx_session_slots WHERE lease_expires_at < clock_timestamp()');
      return outcome;
    });
  }
}

/** Called by openStore for `postgres://…` URLs. Migration is the caller's choice (openStore runs it). */
export async function openPostgresStore(databaseUrl: string, settings: PoolSettings): Promise<PostgresStore> {
  return new PostgresStore(createPool(databaseUrl, settings));
}

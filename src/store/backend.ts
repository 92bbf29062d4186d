/**
 * Serves every role: their interfaces. The store contract, split by role. Everything Presend keeps goes through one of these narrow
 * interfaces; `openBackend(url)` (src/store/open-backend.ts) returns them together, on SQLite or
 * on PostgreSQL, and closes them together. The service, the worker, the API and the CLI see
 * only roles, never the database kind. test/store/contract.ts runs one suite against both
 * backends, so a behaviour that differs between them is a bug.
 *
 * Rules every role keeps:
 * - Every method is async and is ONE transaction: operations that must be atomic (create a
 *   request with its items and its credit hold; store an item's result with its billing) are
 *   one method, never a sequence the caller has to get right.
 * - Refusals a caller turns into an answer (short balance, idempotency mismatch) are returned as
 *   data (`{ kind: ... }`), never thrown. Exceptions are for bugs and outages.
 * - Times are passed in (`now`) so tests control the clock, and come back as ISO-8601 strings.
 * - Credits: balance = grants − debits − active holds. A hold turns into exactly one debit or
 *   one release; settling what is already settled is a no-op (no double debit, ever).
 *
 * Adding a role (docs/architecture.md, "Adding a role"): its interface here, its one
 * implementation over the query interface in src/store/roles/, one line in `openRoles`
 * (src/store/roles/index.ts), and its tables as the next numbered migration of both dialects.
 */
import type { FactsCache, SessionLimiter } from '../core/ports.js';
import type {
  Account,
  ApiKeyRecord,
  AuthenticatedKey,
  BatchRequestView,
  ClaimInput,
  ClaimedItem,
  CreateBatchInput,
  CreateBatchOutcome,
  CreditBalance,
  ItemResultInput,
  ItemResultOutcome,
  KeyMode,
  ListRecord,
  PurgeOutcome,
  RateDecision,
  ResultsSlice,
  StartVerificationInput,
  StartVerificationOutcome,
  StoredResult,
  VerificationRecord,
} from './store.js';

/** Accounts and their API keys (DESIGN.md §3). */
export interface AccountsRole {
  /** Null when the name is taken. `credits` > 0 adds an initial grant. */
  createAccount(input: { name: string; credits: number; now: Date }): Promise<Account | null>;
  findAccountByName(name: string): Promise<Account | null>;
  setAccountRateLimit(accountId: string, perSecond: number | null, burst: number | null): Promise<void>;
  /** `hash` is the SHA-256 (hex) of the full key; the key itself is never stored. */
  createApiKey(input: { accountId: string; hash: string; displayPrefix: string; mode: KeyMode; now: Date }): Promise<ApiKeyRecord>;
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Revokes every active key whose display prefix starts with `prefix`; returns how many. */
  revokeApiKeys(prefix: string, now: Date): Promise<number>;
  /** Null for unknown or revoked keys. */
  findActiveKey(hash: string): Promise<AuthenticatedKey | null>;
}

/** The credit ledger outside the use cases that hold, debit and release (those are in their own transactions). */
export interface LedgerRole {
  grantCredits(accountId: string, credits: number, now: Date): Promise<CreditBalance>;
  getBalance(accountId: string): Promise<CreditBalance>;
}

/** Single checks (`POST /v1/verify`): hold → debit or release, idempotent replay, leases. */
export interface VerificationsRole {
  /** Claims the idempotency key, checks and holds the credit, inserts the check: one transaction. */
  start(input: StartVerificationInput): Promise<StartVerificationOutcome>;
  /**
   * Stores the result, fills `history` from the account's earlier checks of the address, and
   * turns the hold into a debit (actionable verdict) or a release. Idempotent.
   */
  complete(input: { verificationId: string; result: StoredResult; now: Date }): Promise<VerificationRecord>;
  /** Engine failure (a bug or outage): state failed, hold released. */
  fail(input: { verificationId: string; now: Date }): Promise<VerificationRecord>;
  get(accountId: string, verificationId: string): Promise<VerificationRecord | null>;
  /** Checks still running since before `olderThan` (their process died long ago): fail and release. */
  failStale(olderThan: Date, now: Date): Promise<number>;
  /** Extends the leases of checks this process is still running. */
  renewLeases(verificationIds: readonly string[], until: Date): Promise<void>;
  /** Takes over running checks whose lease lapsed, at most `limit`, oldest first; two callers never take the same one. */
  claimAbandoned(input: { now: Date; leaseExpiresAt: Date; limit: number }): Promise<VerificationRecord[]>;
}

/** Batch requests and their results (`POST /v1/requests`, `GET /v1/requests/{id}[/results]`). */
export interface BatchesRole {
  /** Idempotency claim + request + items + credit hold, atomically. Racing identical calls create one request. */
  create(input: CreateBatchInput): Promise<CreateBatchOutcome>;
  /** Null for unknown ids and requests of other accounts. */
  get(accountId: string, requestId: string): Promise<BatchRequestView | null>;
  /**
   * Stores an item's result and its billing in one transaction (results arriving together may
   * share one). A final result gets the next final sequence number of its request; the last
   * open item finalizes the request. Idempotent per item.
   */
  recordItemResult(input: ItemResultInput): Promise<ItemResultOutcome>;
  /** Final items with finalSeq > afterSeq in finality order, with the request read in the same snapshot. */
  resultsSlice(input: { accountId: string; requestId: string; afterSeq: number; limit: number }): Promise<ResultsSlice | null>;
}

/** Stored lists (`presend lists import`, `POST /v1/requests {listId}`). */
export interface ListsRole {
  createList(input: { accountId: string; name: string | null; now: Date }): Promise<ListRecord>;
  appendListEntries(listId: string, emails: readonly string[]): Promise<void>;
  finishListImport(listId: string, state: 'ready' | 'failed'): Promise<ListRecord>;
  /** Null for an unknown list or one of another account. */
  getList(accountId: string, listId: string): Promise<ListRecord | null>;
  /** Entries in import order. */
  readListEntries(listId: string): Promise<string[]>;
  /**
   * Imports a list: created `importing`, its entries appended chunk by chunk as they come, then
   * `ready`. An empty import, or one whose entries fail to arrive, ends `failed` and throws
   * `ListImportFailed` (src/store/roles/lists.ts) naming the list.
   */
  importList(input: { accountId: string; name: string | null; now: Date; entries: AsyncIterable<readonly string[]> | Iterable<readonly string[]> }): Promise<ListRecord>;
}

/** Per-key token buckets (DESIGN.md §4), shared by every API node when the store is. */
export interface RateLimitsRole {
  consumeToken(input: { keyId: string; now: Date; perSecond: number; burst: number }): Promise<RateDecision>;
}

/**
 * The work queue of batch items: leases in the store, plus wake-ups so an idle worker hears of
 * new work at once instead of at its next poll.
 */
export interface WorkQueueRole {
  /**
   * Leases up to `limit` items: pending ones (oldest request first, whole domains so one SMTP
   * session serves many), greylisted ones whose recheck is due (affinity first), and claimed
   * ones whose lease expired (a crashed worker). Moves their requests to `running`.
   */
  claim(input: ClaimInput): Promise<ClaimedItem[]>;
  /** Extends the leases `owner` holds; returns the ids it no longer holds (taken over or finished elsewhere). */
  renewLeases(owner: string, itemIds: readonly number[], until: Date): Promise<number[]>;
  /** Hands unfinished items back (graceful shutdown). */
  release(owner: string, itemIds: readonly number[]): Promise<void>;
  /** Items not yet final over all requests (metrics). */
  depth(): Promise<number>;
  /** A request with open items was created: wake the idle workers. */
  publish(requestId: string): Promise<void>;
  /** Resolves when work may be available: a publish, `maxWaitMs` elapsed, or `signal` aborted. */
  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void>;
  /** Wake the workers of `affinity` at `at`, when a greylisting recheck is due. */
  scheduleRecheck(affinity: string, at: Date): Promise<void>;
}

/**
 * The engine's shared state (src/core/ports.ts): per-MX session slots and domain facts. In one
 * process on SQLite they live in memory; on PostgreSQL in the database, so the politeness limit
 * holds summed over every worker and a fact found by one serves all.
 */
export interface EngineStateRole {
  limiter: SessionLimiter;
  cache: FactsCache;
}

/** Retention (DESIGN.md §4): what is past its time is deleted. */
export interface RetentionRole {
  /** Requests past retentionExpiresAt (with items), finished checks older than the retention, expired idempotency records and shared engine state. */
  purgeExpired(now: Date, verificationRetentionDays: number): Promise<PurgeOutcome>;
}

/** Every role of one database, opened and closed together. */
export interface Backend {
  /** For logs and /metrics labels only: nothing branches on it. */
  readonly kind: 'sqlite' | 'postgres';
  readonly accounts: AccountsRole;
  readonly ledger: LedgerRole;
  readonly verifications: VerificationsRole;
  readonly batches: BatchesRole;
  readonly lists: ListsRole;
  readonly rateLimits: RateLimitsRole;
  readonly work: WorkQueueRole;
  readonly engineState: EngineStateRole;
  readonly retention: RetentionRole;
  /** Apply pending numbered migrations (idempotent; openBackend does it unless told not to). */
  migrate(): Promise<void>;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  /** Writes handed in are committed, wake-ups and pools closed. Idempotent. */
  close(): Promise<void>;
}

/**
 * The store contract. Everything Presend keeps — accounts, keys, the credit ledger, lists,
 * single verifications, batch requests and their items, idempotency records, rate-limit
 * buckets and address history — goes through this interface. SQLite (src/store/sqlite) and
 * PostgreSQL (src/store/postgres) implement it; test/store/contract.ts runs the same suite
 * against both, so a behaviour that differs between them is a bug in one of them.
 *
 * Rules every implementation keeps:
 * - Every method is async, even where better-sqlite3 is synchronous.
 * - Each method is ONE transaction. Operations that must be atomic (create a request with its
 *   items and its credit hold; store an item's result together with its billing) are one method,
 *   never a sequence the caller has to get right.
 * - Refusals that a caller turns into an HTTP status (short balance, idempotency mismatch) are
 *   returned as data (`{ kind: ... }`), never thrown. Exceptions are for bugs and outages.
 * - Times are passed in (`now`) so tests control the clock; stored as ISO-8601 UTC strings
 *   (or timestamptz) and returned as ISO strings.
 * - Credits: balance = grants − debits − active holds. A hold turns into exactly one debit or
 *   one release; settling an already-settled item is a no-op (no double debit, ever).
 * - Billing, history, counters and the request outcome follow src/store/billing-rules.ts
 *   (`settle`, `finalizeStoredResult`, `nextHistory`, `countersFrom`, `requestOutcome`): both
 *   implementations call those helpers inside their transactions instead of re-deciding.
 * - Final results of a request are numbered 1, 2, 3, … in the order they became final
 *   (`final_seq`, dense, per request): the results cursor is that number.
 * - The SQLite implementation (src/store/sqlite/*) is the reference: when in doubt, read it.
 */
import type { EngineResult, LegacyDecision, PresendEnvelope, PreSendDecision, PublicVerdict } from '../core/types.js';

export type KeyMode = 'live' | 'test';

export interface Account {
  id: string;
  name: string;
  createdAt: string;
  /** Per-account token-bucket override; null = the service default. */
  rateLimitPerSecond: number | null;
  rateLimitBurst: number | null;
}

export interface CreditBalance {
  granted: number;
  debited: number;
  /** Credits currently held by unfinished batch items and running verifications. */
  held: number;
  /** granted − debited − held */
  available: number;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** e.g. `ps_live.AbC1` — enough to recognise a key, useless to use it. */
  displayPrefix: string;
  mode: KeyMode;
  createdAt: string;
  revokedAt: string | null;
}

/** What authentication yields: the key and the account it acts for. */
export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  mode: KeyMode;
  displayPrefix: string;
  rateLimitPerSecond: number | null;
  rateLimitBurst: number | null;
}

export interface RateDecision {
  allowed: boolean;
  /** Whole tokens left after this request (0 when refused). */
  remaining: number;
  /** Milliseconds until one token is available again (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

export type ListState = 'importing' | 'ready' | 'failed';

export interface ListRecord {
  id: string;
  accountId: string;
  name: string | null;
  state: ListState;
  entries: number;
  createdAt: string;
}

/** Scope of an Idempotency-Key (DESIGN.md §4): account + route + key, plus the body hash. */
export interface IdempotencyClaim {
  route: string;
  key: string;
  bodyHash: string;
  /** After this instant the record is forgotten (24 h after first use). */
  expiresAt: string;
}

// ---------------------------------------------------------------- single verifications

export type VerificationState = 'running' | 'completed' | 'failed';

export interface VerificationRecord {
  /** Also the `engineJobId` of a 202. */
  id: string;
  accountId: string;
  email: string;
  state: VerificationState;
  billable: boolean;
  createdAt: string;
  /** Present once completed: the envelope as billed, with history filled in. */
  result: StoredResult | null;
}

/** A final result as stored (and as the API renders it). */
export interface StoredResult {
  envelope: PresendEnvelope;
  legacy: LegacyDecision;
  score: number | null;
  checkedAt: string;
  attempts: number;
  providerFamily: string;
}

export interface StartVerificationInput {
  accountId: string;
  keyId: string;
  email: string;
  /** Live keys hold 1 credit while the check runs (402 if none is available); sandbox keys don't. */
  billable: boolean;
  idempotency: IdempotencyClaim;
  now: Date;
  /** Until when the creating process holds the check; renewed while it runs, resumed by another after. */
  leaseExpiresAt: Date;
  /**
   * A result already known at creation (the sandbox answers without waiting): the check is
   * created completed, billed and recorded in the same transaction, as `completeVerification`
   * would have done it a moment later.
   */
  result?: StoredResult;
}

export type StartVerificationOutcome =
  | { kind: 'created'; verification: VerificationRecord }
  | { kind: 'replay'; verification: VerificationRecord }
  | { kind: 'idempotency_mismatch' }
  | { kind: 'insufficient_credits'; available: number };

// ---------------------------------------------------------------- batches

export type RequestMode = 'emails' | 'list';
export type RequestState = 'queued' | 'running' | 'completed' | 'failed';

export interface NewBatchItem {
  /** Normalised address (domain lower-cased + IDNA); unique within the request. */
  email: string;
  domain: string;
  /** Set for an address that is final at creation (syntax-invalid list entry → `rejected`). */
  finalResult?: StoredResult;
}

export interface CreateBatchInput {
  accountId: string;
  keyId: string;
  mode: RequestMode;
  listId: string | null;
  /** Addresses given, duplicates included. */
  total: number;
  /** Unique addresses, already de-duplicated by the caller. */
  items: NewBatchItem[];
  /** Live keys hold one credit per unique pending item; sandbox requests hold nothing. */
  billable: boolean;
  idempotency: IdempotencyClaim;
  now: Date;
  retentionDays: number;
}

export type CreateBatchOutcome =
  | { kind: 'created'; request: BatchRequestView }
  | { kind: 'replay'; request: BatchRequestView }
  | { kind: 'idempotency_mismatch' }
  | { kind: 'insufficient_credits'; available: number; needed: number };

export interface Finalization {
  finalizedAt: string;
  outcome: 'completed' | 'failed';
  results: number;
  creditsDebited: number;
  creditsReleased: number;
}

/** Counter keys of DESIGN.md §4. pending + rechecking + completed + failed = unique. */
export interface Counters {
  total: number;
  unique: number;
  duplicates: number;
  pending: number;
  completed: number;
  failed: number;
  rechecking: number;
  send: number;
  suppress: number;
  sendWithCaution: number;
  enrichFirst: number;
  recheckLater: number;
  manualReview: number;
  doNotDecide: number;
  creditsHeld: number;
  creditsDebited: number;
  creditsReleased: number;
}

export interface BatchRequestView {
  id: string;
  accountId: string;
  mode: RequestMode;
  state: RequestState;
  errorCode: string | null;
  createdAt: string;
  retentionExpiresAt: string | null;
  finalization: Finalization | null;
  sandbox: boolean;
  counters: Counters;
}

/** An item handed to a worker under a lease. */
export interface ClaimedItem {
  itemId: number;
  requestId: string;
  accountId: string;
  email: string;
  domain: string;
  sandbox: boolean;
  /** How many times the item has been claimed before (crash/lease-expiry retries). */
  attempts: number;
  /** How many greylisting rechecks already happened. */
  rechecks: number;
}

export interface ClaimInput {
  /** Lease owner: unique per worker instance (process). */
  owner: string;
  /** Affinity name (same egress host): a greylisted item is rechecked by this worker first. */
  affinity: string;
  now: Date;
  leaseMs: number;
  limit: number;
  /** A greylisted item whose affinity worker has not come back within this long goes to anyone. */
  affinityGraceMs: number;
}

export type ItemResultInput =
  | {
      kind: 'final';
      itemId: number;
      result: StoredResult;
      /** The engine's verdict outcome decides the billing: actionable → debit, else release. */
      now: Date;
      retentionDays: number;
    }
  | {
      /** Greylisted: keep the hold, come back at `recheckAt` from the same worker (affinity). */
      kind: 'recheck';
      itemId: number;
      affinity: string;
      recheckAt: Date;
      now: Date;
    };

export interface ItemResultOutcome {
  /** False when the item was already final (a retried job): nothing changed, nothing billed. */
  recorded: boolean;
  /** True when this result finalized the whole request. */
  finalizedRequest: boolean;
  /** Billing applied to this item, for metrics. */
  debited: number;
  verdict: PublicVerdict | null;
}

export interface ResultRow extends StoredResult {
  email: string;
  /** 1-based position in finality order; the cursor encodes the last one returned. */
  finalSeq: number;
}

export interface ResultsSlice {
  request: BatchRequestView;
  rows: ResultRow[];
  /** Highest final sequence number so far (= number of final items). */
  finalCount: number;
}

export interface PurgeOutcome {
  requests: number;
  verifications: number;
  idempotencyRecords: number;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Apply pending numbered migrations (idempotent). */
  migrate(): Promise<void>;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;

  // accounts, keys, credits --------------------------------------------------------------
  /** Null when the name is taken. `credits` > 0 adds an initial grant. */
  createAccount(input: { name: string; credits: number; now: Date }): Promise<Account | null>;
  findAccountByName(name: string): Promise<Account | null>;
  setAccountRateLimit(accountId: string, perSecond: number | null, burst: number | null): Promise<void>;
  grantCredits(accountId: string, credits: number, now: Date): Promise<CreditBalance>;
  getBalance(accountId: string): Promise<CreditBalance>;
  /** `hash` is the SHA-256 (hex) of the full key; the key itself is never stored. */
  createApiKey(input: { accountId: string; hash: string; displayPrefix: string; mode: KeyMode; now: Date }): Promise<ApiKeyRecord>;
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Revokes every active key whose display prefix starts with `prefix`; returns how many. */
  revokeApiKeys(prefix: string, now: Date): Promise<number>;
  /** Null for unknown or revoked keys. */
  findActiveKey(hash: string): Promise<AuthenticatedKey | null>;

  // rate limits ------------------------------------------------------------------------
  /** Token bucket per key, kept in the store so several API nodes share it. */
  consumeRateToken(input: { keyId: string; now: Date; perSecond: number; burst: number }): Promise<RateDecision>;

  // lists ------------------------------------------------------------------------------
  createList(input: { accountId: string; name: string | null; now: Date }): Promise<ListRecord>;
  appendListEntries(listId: string, emails: readonly string[]): Promise<void>;
  finishListImport(listId: string, state: 'ready' | 'failed'): Promise<ListRecord>;
  /** Null for an unknown list or one of another account. */
  getList(accountId: string, listId: string): Promise<ListRecord | null>;
  /** Entries in import order. */
  readListEntries(listId: string): Promise<string[]>;

  // single verifications ---------------------------------------------------------------
  /** Claims the idempotency key, checks and holds the credit, inserts the verification: one transaction. */
  startVerification(input: StartVerificationInput): Promise<StartVerificationOutcome>;
  /**
   * Stores the result, fills `history` from the account's earlier checks of the address, and
   * turns the hold into a debit (actionable verdict) or a release. Idempotent: a second call
   * returns the record as it stands.
   */
  completeVerification(input: { verificationId: string; result: StoredResult; now: Date }): Promise<VerificationRecord>;
  /** Engine failure (a bug or outage): state failed, hold released. */
  failVerification(input: { verificationId: string; now: Date }): Promise<VerificationRecord>;
  getVerification(accountId: string, verificationId: string): Promise<VerificationRecord | null>;
  /** Verifications still running since before `olderThan` (their process died): fail and release. */
  failStaleVerifications(olderThan: Date, now: Date): Promise<number>;
  /** Extends the leases of checks this process is still running. */
  renewVerificationLeases(verificationIds: readonly string[], until: Date): Promise<void>;
  /**
   * Takes over running checks whose lease lapsed (their process died): each is leased to the
   * caller until `leaseExpiresAt` and returned, at most `limit`, oldest first. Two callers never
   * take the same check.
   */
  claimAbandonedVerifications(input: { now: Date; leaseExpiresAt: Date; limit: number }): Promise<VerificationRecord[]>;

  // batches ----------------------------------------------------------------------------
  /** Idempotency claim + request + items + credit hold, atomically. Racing identical calls create one request. */
  createBatchRequest(input: CreateBatchInput): Promise<CreateBatchOutcome>;
  /** Null for unknown ids and requests of other accounts. */
  getRequest(accountId: string, requestId: string): Promise<BatchRequestView | null>;
  /**
   * Leases up to `limit` items: pending ones (oldest request first, grouped by domain so one
   * SMTP session serves many), greylisted ones whose recheck time has come (affinity first),
   * and claimed ones whose lease expired (a crashed worker). Moves their requests to `running`.
   */
  claimItems(input: ClaimInput): Promise<ClaimedItem[]>;
  /** Extends the lease of items still held by `owner`; returns the ids it no longer holds. */
  renewLeases(owner: string, itemIds: readonly number[], until: Date): Promise<number[]>;
  /** Hands unfinished items back (graceful shutdown). */
  releaseClaims(owner: string, itemIds: readonly number[]): Promise<void>;
  /**
   * Stores an item's result and its billing in one transaction. A final result gets the next
   * final sequence number of its request; when it was the last open item the request becomes
   * `completed` with its finalization and retention. Idempotent per item.
   */
  recordItemResult(input: ItemResultInput): Promise<ItemResultOutcome>;
  /** Final items with finalSeq > afterSeq in finality order, with the request read in the same snapshot. */
  getResultsSlice(input: { accountId: string; requestId: string; afterSeq: number; limit: number }): Promise<ResultsSlice | null>;
  /** Items not yet final over all requests (metrics). */
  queueDepth(): Promise<number>;

  // retention --------------------------------------------------------------------------
  /** Deletes requests past retentionExpiresAt (with items), finished verifications and idempotency records past their expiry. */
  purgeExpired(now: Date, verificationRetentionDays: number): Promise<PurgeOutcome>;
}

/** Decision → counter key (DESIGN.md §4). */
export const DECISION_COUNTER: Record<PreSendDecision, keyof Counters> = {
  send: 'send',
  suppress: 'suppress',
  send_with_caution: 'sendWithCaution',
  enrich_first: 'enrichFirst',
  recheck_later: 'recheckLater',
  manual_review: 'manualReview',
  do_not_decide: 'doNotDecide',
};

/** Turns an engine result into the stored form. */
export function toStoredResult(result: EngineResult): StoredResult {
  return {
    envelope: result.envelope,
    legacy: result.legacy,
    score: result.score,
    checkedAt: result.verifiedAt,
    attempts: result.attempts,
    providerFamily: result.providerFamily,
  };
}

/**
 * Serves every role: the records they take and return. The records of the store contract: what the roles of src/store/backend.ts take and return
 * (accounts, keys, balances, lists, checks, batch requests, items and their results). Plain
 * data, the same on every dialect.
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

/** An API key as its owner and the admin commands see it: never the key, only what names it. */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** e.g. `ps_live.AbC1` — enough to recognise a key, useless to use it. */
  displayPrefix: string;
  mode: KeyMode;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
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

/** Scope of an Idempotency-Key (docs/design.md §4): account + route + key, plus the body hash. */
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

/** A lease as it is granted with the work it covers (a check started, a list created, …): src/store/roles/leases.ts. */
export interface LeaseGrant {
  /** The lease keeper of the process that holds it (src/service/leases/lease-keeper.ts). */
  owner: string;
  until: Date;
}

export interface StartVerificationInput {
  accountId: string;
  keyId: string;
  email: string;
  /** Live keys hold 1 credit while the check runs (402 if none is available); sandbox keys don't. */
  billable: boolean;
  idempotency: IdempotencyClaim;
  now: Date;
  /** The creating process's lease on the check: renewed by its keeper while it runs, taken over by another node after. */
  lease: LeaseGrant;
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
  /** Unique addresses, already de-duplicated by the caller (none for a batch over a list: `fillFromList`). */
  items: NewBatchItem[];
  /**
   * A batch over a stored list: created with `total` (the list's entries) and no items; its items
   * are copied from the list afterwards (ListBatchesRole), the fill leased to the creating process.
   * A live key holds one credit per entry now; those of duplicates and invalid entries are
   * released as their chunks are written.
   */
  fillFromList?: { lease: LeaseGrant };
  /** The most unfinished items the account may have with this batch's (PRESEND_ACCOUNT_MAX_OUTSTANDING); no cap when absent. */
  maxOutstanding?: number;
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
  | { kind: 'insufficient_credits'; available: number; needed: number }
  | { kind: 'too_much_outstanding_work'; outstanding: number; adding: number; max: number };

export interface Finalization {
  finalizedAt: string;
  outcome: 'completed' | 'failed';
  results: number;
  creditsDebited: number;
  creditsReleased: number;
}

/** Counter keys of docs/design.md §4. pending + rechecking + completed + failed = unique. */
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
  /**
   * Seconds until the earliest greylisting recheck is due, present only while `rechecking` > 0
   * (0 when it is due now): how long a caller's progress will stand still. Added to the design's
   * counters for the "until when" of rechecks; its value is an integer ≥ 0 like every counter.
   */
  nextRecheckInSeconds?: number;
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
  /** When the earliest greylisting recheck of the request is due; null when none waits. */
  nextRecheckAt: string | null;
  /** Rechecks waiting because every egress route is paused for their provider, and when the first is due; null when none waits. */
  waitingForRoute?: { count: number; retryAt: string } | null;
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
      /** Greylisted (or not asked): keep the hold, come back at `recheckAt` from the same worker first (affinity). */
      kind: 'recheck';
      itemId: number;
      affinity: string;
      recheckAt: Date;
      now: Date;
      /** Every egress route is paused for the address's provider (egress_paused): the dashboard says so. */
      waitsForRoute?: boolean;
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
  /** Failed list imports whose entries were deleted. */
  failedLists: number;
  /** Failed sign-in records older than a day, deleted. */
  signInFailures: number;
  /** Feedback events older than their retention, deleted (the address summaries stay: docs/feedback.md). */
  feedbackEvents: number;
}

/** Decision → counter key (docs/design.md §4). */
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

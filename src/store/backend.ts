/**
 * The store contract: `Backend`, every role of one database. Everything Presend keeps goes
 * through one of these narrow roles; `openBackend(url)` (src/store/open-backend.ts) returns them
 * together, on SQLite or on PostgreSQL, and closes them together. The service, the worker, the
 * API and the CLI see only roles, never the database kind. test/store/contract.ts runs one suite
 * against both backends, so a behaviour that differs between them is a bug.
 *
 * Each role lives in one place under src/store/roles/: its interface, the records only it takes
 * and returns, and its implementation over the query interface (a folder when it is big:
 * batches/, webhooks/, feedback/). Records several roles share are in files named for what they
 * are (api-keys.ts, stored-result.ts, batch-request.ts). The five lease roles below (single
 * checks, lists, list batches, the work queue, list files) are still declared here while their
 * leases become one primitive; they move beside their implementations after that.
 *
 * Rules every role keeps:
 * - Every method is async and is ONE transaction: operations that must be atomic (create a
 *   request with its items and its credit hold; store an item's result with its billing) are
 *   one method, never a sequence the caller has to get right.
 * - Refusals a caller turns into an answer (short balance, idempotency mismatch) are returned as
 *   data (`{ kind: ... }`), never thrown. Exceptions are for bugs and outages; an outage (any
 *   error the database raised) is a `StoreFailure` (src/store/store-failure.ts).
 * - Times are passed in (`now`) so tests control the clock, and come back as ISO-8601 strings.
 * - Credits: balance = grants − debits − active holds. A hold turns into exactly one debit or
 *   one release; settling what is already settled is a no-op (no double debit, ever).
 *
 * Adding a role (docs/architecture.md, "Adding a role"): its file in src/store/roles/ (interface,
 * records, implementation), a field below, one line in `assembleBackend`
 * (src/store/roles/index.ts), and its tables as the next numbered migration of both dialects.
 */
import type { AccountsRole } from './roles/accounts.js';
import type { LedgerRole } from './roles/ledger.js';
import type { BatchesRole } from './roles/batches/batches.js';
import type { RateLimitsRole } from './roles/rate-limits.js';
import type { EngineStateRole } from './roles/engine-state.js';
import type { RetentionRole } from './roles/retention.js';
import type { UsersRole } from './roles/users.js';
import type { OwnerSessionsRole } from './roles/owner-sessions.js';
import type { LoginThrottleRole } from './roles/login-throttle.js';
import type { KeyManagementRole } from './roles/key-management.js';
import type { AccountViewsRole } from './roles/account-views.js';
import type { WebhooksRole } from './roles/webhooks/webhooks.js';
import type { ProberRepliesRole } from './roles/prober-replies.js';
import type { PoliciesRole } from './roles/policies.js';
import type { FeedbackRole } from './roles/feedback/feedback.js';
import type { LeaseGrant, LeasesRole } from './roles/leases.js';
// What the five lease roles declared here take and return.
import type { ClaimedItem, ClaimInput, ListRecord, StartVerificationInput, StartVerificationOutcome, VerificationRecord } from './store.js';
import type { BadRow, ColumnChoice, ListFile, ListOverview } from './owner-records.js';
import type { NewBatchItem } from './batch-request.js';
import type { IdempotencyClaim } from './roles/idempotency.js';
import type { StoredResult } from './stored-result.js';
import type { EvidenceRole } from './roles/evidence.js';

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
  /** What `start` would say of a replay, read only: the check a live Idempotency-Key names, a mismatch, or null (start would create). */
  findReplay(input: { accountId: string; idempotency: IdempotencyClaim; now: Date }): Promise<Extract<StartVerificationOutcome, { kind: 'replay' | 'idempotency_mismatch' }> | null>;
  /**
   * A caller was told the check goes on (202): resumed, not failed, if its process dies.
   * `answeredAs`: the 202's requestId (the first one kept), repeated by its `verification.completed`
   * event — written now if the check completed before this call (docs/webhooks.md).
   */
  markResumable(verificationId: string, answeredAs?: string): Promise<void>;
}

/** Stored lists (`presend lists import`, `POST /v1/requests {listId}`). */
export interface ListsRole {
  /** `lease`: the importing process's lease (renewed by its keeper, LeasesRole); without one the list is never failed as lapsed. */
  createList(input: { accountId: string; name: string | null; now: Date; lease?: LeaseGrant }): Promise<ListRecord>;
  /**
   * Appends a chunk; throws when the list is no longer importing. `at`: the position the chunk must start at — when another run has moved the
   * list on or ended it meanwhile (an import taken over after a stall), it throws `ImportTakenOver`
   * and appends nothing.
   */
  appendListEntries(listId: string, emails: readonly string[], at?: number): Promise<void>;
  /** Ends an import still under way; a list already ended stays as it is (asked to fail: returned as it is; asked to be ready: throws). */
  finishListImport(listId: string, state: 'ready' | 'failed'): Promise<ListRecord>;
  /** Null for an unknown list or one of another account. */
  getList(accountId: string, listId: string): Promise<ListRecord | null>;
  /** The entries at positions [fromPosition, fromPosition + limit), in import order (a list's positions run 0 … entries − 1). */
  readListSlice(listId: string, fromPosition: number, limit: number): Promise<Array<{ position: number; email: string }>>;
  /**
   * Imports a list: created `importing`, its entries appended chunk by chunk as they come, then
   * `ready`. An empty import, one longer than `maxEntries`, or one whose entries fail to arrive,
   * ends `failed` and throws `ListImportFailed` (src/store/roles/lists.ts) naming the list.
   * `lease`: the importing process's lease, handed to its keeper by `onCreated`.
   */
  importList(input: {
    accountId: string;
    name: string | null;
    now: Date;
    entries: AsyncIterable<readonly string[]> | Iterable<readonly string[]>;
    maxEntries?: number;
    lease?: LeaseGrant;
    onCreated?(list: ListRecord): void;
  }): Promise<ListRecord>;
}

/**
 * Batches over stored lists (src/store/roles/list-batches.ts): the request is created at once by
 * BatchesRole.create with its count and no items; its items are then copied from the list in
 * bounded chunks, each its own transaction, under a lease (LeasesRole, kind `listFill`), so another
 * process (or the next start) resumes a fill whose process died.
 */
export interface ListBatchesRole {
  /**
   * Writes the items of list positions [from, next): `items` are this chunk's unique entries;
   * those already in the request (a duplicate of an earlier chunk) are skipped.
   * `done` ends the fill and its lease (and finalizes the request if its items are all final). 'lost' when the
   * fill is no longer at `from` (another process took it over): nothing was written.
   */
  writeFillChunk(input: {
    requestId: string;
    from: number;
    next: number;
    done: boolean;
    items: readonly NewBatchItem[];
    now: Date;
    retentionDays: number;
  }): Promise<'written' | 'lost'>;
}

/**
 * The work queue of batch items: the claim that leases them, plus wake-ups so an idle worker
 * hears of new work at once instead of at its next poll. Their leases are renewed and handed back
 * through LeasesRole (kind `item`).
 */
export interface WorkQueueRole {
  /**
   * Leases up to `limit` items: pending ones (oldest request first, whole domains so one SMTP
   * session serves many), greylisted ones whose recheck is due (affinity first), and claimed
   * ones whose lease expired (a crashed worker). Moves their requests to `running`.
   */
  claim(input: ClaimInput): Promise<ClaimedItem[]>;
  /** Items not yet final over all requests (metrics). */
  depth(): Promise<number>;
  /** A request with open items was created: wake the idle workers. */
  publish(requestId: string): Promise<void>;
  /** Resolves when work may be available: a publish, `maxWaitMs` elapsed, or `signal` aborted. */
  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void>;
}

/** The files lists were uploaded from (kept to write results back into them), and the rows they could not use. */
export interface ListFilesRole {
  attachFile(input: { listId: string; accountId: string; fileName: string; uploadedBy: string; now: Date }): Promise<void>;
  /** Chunks are numbered from 0 in file order; `base64` is the chunk's bytes. */
  appendFileChunk(listId: string, seq: number, base64: string): Promise<void>;
  describeFile(listId: string, input: { sizeBytes: number; layoutJson: string | null; columnChoices: ColumnChoice[] | null }): Promise<void>;
  /**
   * Takes the pending column choice: true for the one caller that clears it (and starts the
   * import, leased to it by `lease`), false when there was none (already chosen).
   */
  takeColumnChoice(accountId: string, listId: string, layoutJson: string, lease: LeaseGrant): Promise<boolean>;
  /** Counts every bad row; keeps the first `keep` of a list in all. */
  recordBadRows(listId: string, rows: readonly BadRow[], keep: number): Promise<void>;
  recordImportError(listId: string, error: string, line: number | null): Promise<void>;
  /** The file's bytes, chunk after chunk. */
  readFile(listId: string): AsyncIterable<Buffer>;
  /** Null for an unknown list, one of another account, or one not uploaded from a file. */
  getFile(accountId: string, listId: string): Promise<ListFile | null>;
  badRows(listId: string, limit: number): Promise<BadRow[]>;
  /** Newest first, with their files. */
  listLists(accountId: string, limit: number): Promise<ListOverview[]>;
  /** The list, its entries and its file; false for an unknown list or another account's. */
  deleteList(accountId: string, listId: string): Promise<boolean>;
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
  readonly listBatches: ListBatchesRole;
  readonly rateLimits: RateLimitsRole;
  readonly work: WorkQueueRole;
  /** Every kind of leased work (batch items, checks, list fills and imports, feedback imports): src/store/roles/leases.ts. */
  readonly leases: LeasesRole;
  readonly engineState: EngineStateRole;
  readonly retention: RetentionRole;
  readonly users: UsersRole;
  readonly ownerSessions: OwnerSessionsRole;
  readonly loginThrottle: LoginThrottleRole;
  readonly keyManagement: KeyManagementRole;
  readonly listFiles: ListFilesRole;
  readonly accountViews: AccountViewsRole;
  readonly webhooks: WebhooksRole;
  readonly proberReplies: ProberRepliesRole;
  readonly policies: PoliciesRole;
  readonly feedback: FeedbackRole;
  readonly evidence: EvidenceRole;
  /** Apply pending numbered migrations (idempotent; openBackend does it unless told not to). */
  migrate(): Promise<void>;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  /** One small write (a dedicated row) for /readyz: throws when the store cannot write. */
  probeWrite(now: Date): Promise<void>;
  /** Writes handed in are committed, wake-ups and pools closed. Idempotent. */
  close(): Promise<void>;
}

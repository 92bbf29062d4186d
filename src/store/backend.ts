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
 *   data (`{ kind: ... }`), never thrown. Exceptions are for bugs and outages; an outage (any
 *   error the database raised) is a `StoreFailure` (src/store/store-failure.ts).
 * - Times are passed in (`now`) so tests control the clock, and come back as ISO-8601 strings.
 * - Credits: balance = grants − debits − active holds. A hold turns into exactly one debit or
 *   one release; settling what is already settled is a no-op (no double debit, ever).
 *
 * Adding a role (docs/architecture.md, "Adding a role"): its interface here, its one
 * implementation over the query interface in src/store/roles/, one line in `openRoles`
 * (src/store/roles/index.ts), and its tables as the next numbered migration of both dialects.
 */
import type { AddressRecord, FeedbackImport, FeedbackLookup, FeedbackSourceStatus, RecordFeedbackInput, RecordFeedbackOutcome } from './feedback-records.js';
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
  NewBatchItem,
  PurgeOutcome,
  RateDecision,
  ResultsSlice,
  StartVerificationInput,
  StartVerificationOutcome,
  IdempotencyClaim,
  StoredResult,
  VerificationRecord,
} from './store.js';
import type {
  BadRow,
  ColumnChoice,
  KeyActor,
  KeyEvent,
  LedgerEntry,
  ListFile,
  ListOverview,
  OwnerCredentials,
  OwnerSession,
  OwnerUser,
  PasswordTokenPurpose,
  RequestSummary,
  VerdictCount,
} from './owner-records.js';
import type { ClaimedDelivery, DeliveryOutcome, WebhookDelivery, WebhookEndpoint, WebhookEventType } from './webhook-records.js';
import type { PolicyRules, PolicyVersion } from './policy-records.js';
import type { Evidence } from '../core/evidence/evidence.js';

/** Accounts, and authentication by API key (docs/design.md §3). Keys are made, listed and revoked by KeyManagementRole. */
export interface AccountsRole {
  /** Null when the name is taken. `credits` > 0 adds an initial grant. */
  createAccount(input: { name: string; credits: number; now: Date }): Promise<Account | null>;
  findAccountByName(name: string): Promise<Account | null>;
  setAccountRateLimit(accountId: string, perSecond: number | null, burst: number | null): Promise<void>;
  /** The key whose SHA-256 (hex) is `hash`, with its account's limits; null for unknown or revoked keys. */
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
  /** What `start` would say of a replay, read only: the check a live Idempotency-Key names, a mismatch, or null (start would create). */
  findReplay(input: { accountId: string; idempotency: IdempotencyClaim; now: Date }): Promise<Extract<StartVerificationOutcome, { kind: 'replay' | 'idempotency_mismatch' }> | null>;
  /** Checks still running since before `olderThan` (their process died long ago): fail and release. */
  failStale(olderThan: Date, now: Date): Promise<number>;
  /**
   * A caller was told the check goes on (202): resumed, not failed, if its process dies.
   * `answeredAs`: the 202's requestId (the first one kept), repeated by its `verification.completed`
   * event — written now if the check completed before this call (docs/webhooks.md).
   */
  markResumable(verificationId: string, answeredAs?: string): Promise<void>;
  /** Extends the leases of checks this process is still running. */
  renewLeases(verificationIds: readonly string[], until: Date): Promise<void>;
  /**
   * Takes over running checks whose lease lapsed, at most `limit`, oldest first; two callers never
   * take the same one. Lapsed checks that were never marked resumable are failed and released instead.
   */
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
  /** `leaseUntil`: the import's lease (renewed by each append); without it the list is never failed as lapsed. */
  createList(input: { accountId: string; name: string | null; now: Date; leaseUntil?: Date }): Promise<ListRecord>;
  /**
   * Appends a chunk (and renews the lease to `leaseUntil` when given); throws when the list is no
   * longer importing. `at`: the position the chunk must start at — when another run has moved the
   * list on or ended it meanwhile (an import taken over after a stall), it throws `ImportTakenOver`
   * and appends nothing.
   */
  appendListEntries(listId: string, emails: readonly string[], leaseUntil?: Date, at?: number): Promise<void>;
  /** Ends an import still under way; a list already ended stays as it is (asked to fail: returned as it is; asked to be ready: throws). */
  finishListImport(listId: string, state: 'ready' | 'failed'): Promise<ListRecord>;
  /** Extends the lease of an import still under way (an upload whose owner just picked the column). */
  renewImportLease(listId: string, leaseUntil: Date): Promise<void>;
  /**
   * Marks `failed` every import whose lease ran out before `now` (its process died); returns how
   * many. An import from a stored file that a serving process can still take over
   * (ListFilesRole.takeLapsedImport) is left to it.
   */
  failLapsedImports(now: Date): Promise<number>;
  /** Null for an unknown list or one of another account. */
  getList(accountId: string, listId: string): Promise<ListRecord | null>;
  /** The entries at positions [fromPosition, fromPosition + limit), in import order (a list's positions run 0 … entries − 1). */
  readListSlice(listId: string, fromPosition: number, limit: number): Promise<Array<{ position: number; email: string }>>;
  /**
   * Imports a list: created `importing`, its entries appended chunk by chunk as they come, then
   * `ready`. An empty import, one longer than `maxEntries`, or one whose entries fail to arrive,
   * ends `failed` and throws `ListImportFailed` (src/store/roles/lists.ts) naming the list.
   * `leaseMs`: each chunk renews the import's lease by this much.
   */
  importList(input: {
    accountId: string;
    name: string | null;
    now: Date;
    entries: AsyncIterable<readonly string[]> | Iterable<readonly string[]>;
    maxEntries?: number;
    leaseMs?: number;
  }): Promise<ListRecord>;
}

/**
 * Batches over stored lists (src/store/roles/list-batches.ts): the request is created at once by
 * BatchesRole.create with its count and no items; its items are then copied from the list in
 * bounded chunks, each its own transaction, under a lease renewed by each chunk, so another
 * process (or the next start) resumes a fill whose process died.
 */
export interface ListBatchesRole {
  /** Takes over the fill of one request whose lease ran out (or was never taken), leased until `leaseUntil`; null when none. */
  takeLapsedFill(now: Date, leaseUntil: Date): Promise<{ requestId: string; listId: string; position: number } | null>;
  /**
   * Writes the items of list positions [from, next): `items` are this chunk's unique entries;
   * those already in the request (a duplicate of an earlier chunk) are skipped. Renews the lease;
   * `done` ends the fill (and finalizes the request if its items are all final). 'lost' when the
   * fill is no longer at `from` (another process took it over): nothing was written.
   */
  writeFillChunk(input: {
    requestId: string;
    from: number;
    next: number;
    done: boolean;
    items: readonly NewBatchItem[];
    leaseUntil: Date;
    now: Date;
    retentionDays: number;
  }): Promise<'written' | 'lost'>;
}

/** Per-key token buckets (docs/design.md §4), shared by every API node when the store is. */
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

/** Retention (docs/design.md §4): what is past its time is deleted. */
export interface RetentionRole {
  /**
   * Requests past retentionExpiresAt (with items), finished checks older than the retention,
   * expired idempotency records, the entries of failed list imports (and the failed lists
   * themselves once older than the retention) and shared engine state. Deleted in transactions
   * of at most `chunk` rows (default 2,000), yielding to the event loop between them.
   */
  purgeExpired(now: Date, verificationRetentionDays: number, options?: { chunk?: number }): Promise<PurgeOutcome>;
}

/** Owners of an account, who sign in to its dashboard (docs/design.md §7), and their one-time password links. */
export interface UsersRole {
  /** Null when the email is taken (an email names one user over all accounts). `email` is stored lower-cased. */
  createUser(input: { accountId: string; email: string; now: Date }): Promise<OwnerUser | null>;
  findUserByEmail(email: string): Promise<OwnerCredentials | null>;
  /** Whether any owner exists yet (a new install's hint to create the first). */
  anyUser(): Promise<boolean>;
  /** Issues a one-time link (only its SHA-256 is kept); the user's earlier unused links stop working. */
  issuePasswordToken(input: { userId: string; tokenHash: string; purpose: PasswordTokenPurpose; now: Date; expiresAt: Date }): Promise<void>;
  /** The user an unused, unexpired token is for, or null. */
  findPasswordToken(tokenHash: string, now: Date): Promise<{ user: OwnerUser; purpose: PasswordTokenPurpose } | null>;
  /**
   * Uses a token once, in one transaction: sets the password hash, marks the token used and ends
   * every session of the user (a reset signs out everywhere). Null when the token is unknown,
   * used or expired.
   */
  setPasswordWithToken(input: { tokenHash: string; passwordHash: string; now: Date }): Promise<OwnerUser | null>;
}

/** Signed-in sessions, in the store so every API node honours them. */
export interface OwnerSessionsRole {
  /** Also forgets the user's expired sessions. */
  create(input: { idHash: string; userId: string; csrfSecret: string; now: Date; expiresAt: Date }): Promise<void>;
  /** The session, unless unknown, past `expiresAt` or unused since before `idleSince`. */
  find(idHash: string, now: Date, idleSince: Date): Promise<OwnerSession | null>;
  /** Records activity (callers do it at most every few minutes). */
  touch(idHash: string, now: Date): Promise<void>;
  end(idHash: string): Promise<void>;
  /** Sign out everywhere: every session of the user; returns how many ended. */
  endAllOf(userId: string): Promise<number>;
  setFlash(idHash: string, flash: string | null): Promise<void>;
  /** Reads and clears the flash in one transaction: a message is shown once. */
  takeFlash(idHash: string): Promise<string | null>;
}

/** Failed sign-ins counted per scope (an email, a client address) over a sliding window, shared by every node. */
export interface LoginThrottleRole {
  /**
   * Reserves one sign-in attempt against every scope's limit in one step: null, and nothing
   * recorded, when a scope already has `limit` failures or reserved attempts after `since`; else
   * the attempt's id. The reservation counts as a failure until it is released, so attempts fired
   * at once on any number of nodes never check more passwords than the limit.
   */
  reserve(limits: readonly { scope: string; limit: number }[], now: Date, since: Date): Promise<string | null>;
  /** Withdraws a reserved attempt: its password was never checked (the hashing queue was full), or it was right. */
  release(attempt: string): Promise<void>;
  /** A successful sign-in clears its email's failures. */
  clear(scope: string): Promise<void>;
}

/**
 * API keys, however they are made (the dashboard, `presend keys`): labels, last use, revocation
 * by id, and the audit trail that names who did each.
 */
export interface KeyManagementRole {
  /** The key row and its `created` audit event, in one transaction. `hash` is the SHA-256 (hex) of the full key; the key itself is never stored. */
  createKey(input: { accountId: string; hash: string; displayPrefix: string; mode: KeyMode; label: string | null; actor: KeyActor; now: Date }): Promise<ApiKeyRecord>;
  /** Newest first, revoked ones included. */
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Null for an unknown id or a key of another account. */
  getKey(accountId: string, keyId: string): Promise<ApiKeyRecord | null>;
  /**
   * Revokes one key of the account with its `revoked` audit event, in one transaction. Null for
   * an unknown id or another account's key; a key already revoked is returned as it is.
   */
  revokeKey(input: { accountId: string; keyId: string; actor: KeyActor; now: Date }): Promise<ApiKeyRecord | null>;
  /** The key as authentication yields it, for work an owner starts from the dashboard; null when revoked or not the account's. */
  usableKey(accountId: string, keyId: string): Promise<AuthenticatedKey | null>;
  /** Moves last use forward (never back). */
  noteKeyUse(uses: ReadonlyArray<{ keyId: string; at: Date }>): Promise<void>;
  /** Newest first. */
  keyEvents(accountId: string, limit: number): Promise<KeyEvent[]>;
}

/** The files lists were uploaded from (kept to write results back into them), and the rows they could not use. */
export interface ListFilesRole {
  attachFile(input: { listId: string; accountId: string; fileName: string; uploadedBy: string; now: Date }): Promise<void>;
  /** Chunks are numbered from 0 in file order; `base64` is the chunk's bytes. */
  appendFileChunk(listId: string, seq: number, base64: string): Promise<void>;
  describeFile(listId: string, input: { sizeBytes: number; layoutJson: string | null; columnChoices: ColumnChoice[] | null }): Promise<void>;
  /**
   * Takes the pending column choice: true for the one caller that clears it (and may start the
   * import), false when there was none (already chosen).
   */
  takeColumnChoice(accountId: string, listId: string, layoutJson: string): Promise<boolean>;
  /**
   * Takes over one import that runs from its stored file (its column was picked) and whose lease
   * lapsed before `now` (its process died), leased until `leaseUntil`: its bad rows are forgotten
   * (the new run records them again) and its run is counted. Null when there is none, or when it
   * has run `MAX_IMPORT_ATTEMPTS` times (src/store/roles/list-files.ts): `failLapsedImports`
   * fails it then. `entries` are already in the list, in file order: the new run skips them.
   */
  takeLapsedImport(now: Date, leaseUntil: Date): Promise<{ listId: string; accountId: string; entries: number; layoutJson: string; sizeBytes: number } | null>;
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

/** What the dashboard's pages read about an account: its requests, verdicts, ledger and usage. */
export interface AccountViewsRole {
  /** Newest first; `before` pages on (the createdAt of the last one shown). */
  recentRequests(accountId: string, input: { limit: number; before?: string }): Promise<RequestSummary[]>;
  /** One request of the account (with the list it came from); null for another account's. */
  requestSummary(accountId: string, requestId: string): Promise<RequestSummary | null>;
  /** Final items of a request of the account by verdict and decision; empty for another account's. */
  verdictCounts(accountId: string, requestId: string): Promise<VerdictCount[]>;
  /** Newest first; `beforeId` pages on. */
  ledger(accountId: string, input: { limit: number; beforeId?: number }): Promise<LedgerEntry[]>;
  /** Credits debited in each [bounds[i], bounds[i+1]) interval: bounds.length − 1 sums. */
  debitsBetween(accountId: string, bounds: readonly Date[]): Promise<number[]>;
}

/**
 * Signed webhooks (docs/webhooks.md): an account's endpoints and the deliveries of their events.
 * Events are written by the transactions of the changes they announce (src/store/roles/webhook-outbox.ts);
 * senders lease due deliveries here, so a sender that dies leaves rows another takes over.
 */
export interface WebhooksRole {
  createEndpoint(input: { accountId: string; url: string; events: readonly WebhookEventType[]; description: string | null; secret: string; now: Date }): Promise<WebhookEndpoint>;
  /** Oldest first. */
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  /** Null for an unknown id or another account's endpoint. */
  getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpoint | null>;
  /** The endpoint and its deliveries; false for an unknown id or another account's. */
  deleteEndpoint(accountId: string, endpointId: string): Promise<boolean>;
  /** A new secret signs from now on; the one before keeps signing beside it until `graceUntil`. Null for an unknown id or another account's. */
  rotateSecret(input: { accountId: string; endpointId: string; secret: string; graceUntil: Date; now: Date }): Promise<WebhookEndpoint | null>;
  /** An endpoint disabled (by a 410) takes events again; null for an unknown id or another account's. */
  enableEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpoint | null>;
  /** A `webhook.test` event for this one endpoint, due now; null for an unknown id or another account's. */
  sendTest(input: { accountId: string; endpointId: string; now: Date }): Promise<WebhookDelivery | null>;
  /**
   * Leases up to `limit` deliveries until `leaseUntil`: pending ones that are due, and ones whose
   * sender's lease lapsed (it died mid-attempt). Each claim counts an attempt. Two callers never
   * take the same delivery.
   */
  claimDue(input: { owner: string; now: Date; leaseUntil: Date; limit: number }): Promise<ClaimedDelivery[]>;
  /**
   * Records how an attempt ended; false when `owner` no longer holds the delivery (its lease
   * lapsed and another sender took it): nothing is written then. A 410 disables the endpoint
   * and ends its other pending deliveries, in the same transaction.
   */
  recordOutcome(input: { deliveryId: string; owner: string; outcome: DeliveryOutcome; now: Date }): Promise<boolean>;
  /** Newest first; empty for another account's endpoint. */
  deliveries(accountId: string, endpointId: string, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Sends a delivered or failed delivery again, due now, with its retry schedule started over
   * (same event, same `webhook-id`). Null when it is unknown, another account's, still under
   * way, or its endpoint is disabled.
   */
  resend(input: { accountId: string; deliveryId: string; now: Date }): Promise<WebhookDelivery | null>;
  /** Events created before `before` whose deliveries all ended (retention); returns how many. */
  purgeFinished(before: Date): Promise<number>;
}

/** One recent live result, as far as the prober's health reads it. */
export interface RecentProbeResult {
  providerFamily: string | null;
  reasons: string[];
}

/** What recent live probes got back (src/store/roles/prober-replies.ts), for `presend doctor`. */
export interface ProberRepliesRole {
  /** Up to `limit` batch items and up to `limit` single checks finished since `since`, newest first. */
  recent(input: { since: Date; limit: number }): Promise<RecentProbeResult[]>;
}

/**
 * An account's decision policy (docs/policy.md), versioned: each change is a new version, none is
 * ever edited. Rules are checked by the service before they come here.
 */
export interface PoliciesRole {
  /** The version in force; version 0 (the default table, no rules) when none was ever set. */
  current(accountId: string): Promise<PolicyVersion>;
  /** Newest first; version 0 is not listed. */
  history(accountId: string, limit: number): Promise<PolicyVersion[]>;
  /**
   * Adds the next version. With `expectedVersion`, nothing is written when another change came
   * first (`stale`, with the version now in force): a form sent from an old page does not undo it.
   */
  set(input: { accountId: string; rules: PolicyRules; changedBy: string; expectedVersion?: number; now: Date }): Promise<{ kind: 'set'; policy: PolicyVersion } | { kind: 'stale'; current: number }>;
}

/**
 * Send feedback (docs/feedback.md): bounces, deliveries and complaints an account reports about
 * addresses, each event taken once; the summary a check reads; the sources and their tokens.
 */
export interface FeedbackRole {
  /** The feedback of those addresses that have any, and the window of each account named. */
  lookup(keys: ReadonlyArray<{ accountId: string; email: string }>): Promise<FeedbackLookup>;
  /** One transaction: the events not seen before, the addresses' summaries, the import's and the source's counts. */
  record(input: RecordFeedbackInput): Promise<RecordFeedbackOutcome>;
  startImport(input: { accountId: string; source: string; name: string; now: Date }): Promise<string>;
  finishImport(id: string, state: 'completed' | 'failed', now: Date): Promise<FeedbackImport>;
  /** Newest first. */
  imports(accountId: string, limit: number): Promise<FeedbackImport[]>;
  /** The address's history (checks and feedback) and its latest events, for the dashboard. */
  address(accountId: string, email: string): Promise<AddressRecord>;
  /** Removes the address's checks history, feedback summary and events (a person asked to be forgotten); false when there was none. */
  forget(accountId: string, email: string): Promise<boolean>;
  /** False for an unknown account. */
  setWindow(accountId: string, days: number): Promise<boolean>;
  /** Days a hard bounce or a delivery counts for the account's checks. */
  windowDays(accountId: string): Promise<number>;
  sources(accountId: string): Promise<FeedbackSourceStatus[]>;
  /** The webhook token of (account, source): only its SHA-256 and a display prefix are kept; a new one replaces the old. */
  setToken(input: { accountId: string; source: string; tokenHash: string; tokenPrefix: string; now: Date }): Promise<void>;
  /** The account and source of a token, with the key its deliveries are verified with (null: none set). */
  sourceByToken(tokenHash: string): Promise<{ accountId: string; source: string; verifyKey: string | null } | null>;
  /** What checks the provider's signature (SendGrid's public key, Mailgun's signing key, Postmark's user:password). */
  setVerifyKey(input: { accountId: string; source: string; verifyKey: string; now: Date }): Promise<void>;
  /** A delivery the source sent that was refused (bad signature, unreadable body), for the dashboard. */
  noteError(input: { accountId: string; source: string; message: string; now: Date }): Promise<void>;
}

/** One check's evidence to keep: a single check (`check`, by its verification id) or a batch item (`item`, by its request id). */
export interface EvidenceRow {
  accountId: string;
  checkId: string;
  email: string;
  kind: 'check' | 'item';
  evidence: Evidence;
  now: Date;
}

/** How each check reached its verdict (docs/evidence.md), kept for the result retention. */
export interface EvidenceRole {
  /** Keeps many at once (one transaction); a later one for the same check and address replaces the earlier. */
  record(rows: readonly EvidenceRow[]): Promise<void>;
  /** A check's evidence, for its own account only; null when none was kept (or it was purged). */
  ofCheck(accountId: string, checkId: string, email: string): Promise<Evidence | null>;
  /**
   * One address of a batch, for its own account: its state, its result once final, its evidence
   * (null before its first probe ended); null when the batch has no such address.
   */
  ofItem(accountId: string, requestId: string, email: string): Promise<{ state: string; result: StoredResult | null; evidence: Evidence | null } | null>;
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

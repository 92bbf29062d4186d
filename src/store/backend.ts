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
 * are (api-keys.ts, stored-result.ts, batch-request.ts). Leased work of every kind (batch items,
 * checks, list fills and imports, feedback imports) is renewed, released and taken over through
 * one role, `leases` (roles/leases.ts).
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
import type { LeasesRole } from './roles/leases.js';
import type { EvidenceRole } from './roles/evidence.js';
import type { ListFilesRole } from './roles/list-files.js';
import type { WorkQueueRole } from './roles/work-queue.js';
import type { ListBatchesRole } from './roles/list-batches.js';
import type { ListsRole } from './roles/lists.js';
import type { VerificationsRole } from './roles/verifications.js';

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

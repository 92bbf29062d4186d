/**
 * The plan that put each store role in one place (issue 25, "Rooms by use case"): its interface,
 * its records and its implementation together under src/store/roles/, src/store/backend.ts only
 * the aggregate. Applied step by step with scripts/codemods/move-exports.ts, one commit per step:
 *
 *   npx tsx scripts/codemods/move-exports.ts scripts/codemods/store-roles.ts folders
 *   npx tsx scripts/codemods/move-exports.ts scripts/codemods/store-roles.ts records
 *   npx tsx scripts/codemods/move-exports.ts scripts/codemods/store-roles.ts lease-roles   (after the lease work)
 *
 * A file written against the old layout (another branch merged later) has its imports pointed
 * at the new homes with `… store-roles.ts fix FILE…`.
 *
 * Left out on purpose: the interfaces of WorkQueueRole, VerificationsRole, ListBatchesRole,
 * ListsRole and ListFilesRole, and the records only they use (still in store.ts,
 * owner-records.ts and rows.ts), were being reshaped by the lease work when this ran; they move
 * with the step 'lease-roles' after it merges.
 */
import type { Plan } from './move-exports.js';

const S = 'src/store';
const R = `${S}/roles`;

const plan: Plan = {
  steps: [
    {
      // Roles too big for one file get a folder, with the modules only they use.
      name: 'folders',
      files: [
        [`${R}/batches.ts`, `${R}/batches/batches.ts`],
        [`${R}/item-results.ts`, `${R}/batches/item-results.ts`],
        [`${R}/finalize.ts`, `${R}/batches/finalize.ts`],
        [`${S}/request-groups.ts`, `${R}/batches/request-groups.ts`],
        [`${R}/webhooks.ts`, `${R}/webhooks/webhooks.ts`],
        [`${R}/webhook-outbox.ts`, `${R}/webhooks/webhook-outbox.ts`],
        [`${S}/webhook-records.ts`, `${R}/webhooks/webhook-records.ts`],
        [`${R}/feedback.ts`, `${R}/feedback/feedback.ts`],
        [`${S}/feedback-records.ts`, `${R}/feedback/feedback-records.ts`],
        // The token bucket is the rate-limits role's arithmetic, shared by both dialects' buckets.
        [`${S}/token-bucket.ts`, `${R}/rate-limits.ts`],
      ],
    },
    {
      // Each interface and the records only it uses, beside its implementation; shared records in files named for what they are.
      name: 'records',
      declarations: [
        // Shared by several roles.
        { from: `${S}/store.ts`, to: `${S}/api-keys.ts`, names: ['KeyMode', 'AuthenticatedKey'] },
        { from: `${S}/rows.ts`, to: `${S}/api-keys.ts`, names: ['ActiveKeyRow', 'toAuthenticatedKey'] },
        { from: `${S}/store.ts`, to: `${S}/stored-result.ts`, names: ['StoredResult', 'toStoredResult'] },
        { from: `${S}/store.ts`, to: `${S}/batch-request.ts`, names: ['RequestMode', 'RequestState', 'NewBatchItem', 'Finalization', 'Counters', 'DECISION_COUNTER'] },
        { from: `${S}/store.ts`, to: `${R}/idempotency.ts`, names: ['IdempotencyClaim'] },
        // One role each.
        { from: `${S}/backend.ts`, to: `${R}/accounts.ts`, names: ['AccountsRole'] },
        { from: `${S}/store.ts`, to: `${R}/accounts.ts`, names: ['Account'] },
        { from: `${S}/rows.ts`, to: `${R}/accounts.ts`, names: ['AccountRow', 'toAccount'] },
        { from: `${S}/backend.ts`, to: `${R}/ledger.ts`, names: ['LedgerRole'] },
        { from: `${S}/store.ts`, to: `${R}/ledger.ts`, names: ['CreditBalance'] },
        { from: `${S}/backend.ts`, to: `${R}/batches/batches.ts`, names: ['BatchesRole'] },
        {
          from: `${S}/store.ts`,
          to: `${R}/batches/batch-records.ts`,
          names: ['CreateBatchInput', 'CreateBatchOutcome', 'BatchRequestView', 'ItemResultInput', 'ItemResultOutcome', 'ResultRow', 'ResultsSlice'],
        },
        { from: `${S}/backend.ts`, to: `${R}/rate-limits.ts`, names: ['RateLimitsRole'] },
        { from: `${S}/store.ts`, to: `${R}/rate-limits.ts`, names: ['RateDecision'] },
        { from: `${S}/backend.ts`, to: `${R}/engine-state.ts`, names: ['EngineStateRole'] },
        { from: `${S}/backend.ts`, to: `${R}/retention.ts`, names: ['RetentionRole'] },
        { from: `${S}/store.ts`, to: `${R}/retention.ts`, names: ['PurgeOutcome'] },
        { from: `${S}/backend.ts`, to: `${R}/users.ts`, names: ['UsersRole'] },
        { from: `${S}/owner-records.ts`, to: `${R}/users.ts`, names: ['OwnerUser', 'OwnerCredentials', 'PasswordTokenPurpose'] },
        { from: `${S}/backend.ts`, to: `${R}/owner-sessions.ts`, names: ['OwnerSessionsRole'] },
        { from: `${S}/owner-records.ts`, to: `${R}/owner-sessions.ts`, names: ['OwnerSession'] },
        { from: `${S}/backend.ts`, to: `${R}/login-throttle.ts`, names: ['LoginThrottleRole'] },
        { from: `${S}/backend.ts`, to: `${R}/key-management.ts`, names: ['KeyManagementRole'] },
        { from: `${S}/store.ts`, to: `${R}/key-management.ts`, names: ['ApiKeyRecord'] },
        { from: `${S}/owner-records.ts`, to: `${R}/key-management.ts`, names: ['KeyEvent', 'KeyActor'] },
        { from: `${S}/backend.ts`, to: `${R}/account-views.ts`, names: ['AccountViewsRole'] },
        { from: `${S}/owner-records.ts`, to: `${R}/account-views.ts`, names: ['RequestSummary', 'VerdictCount', 'LedgerKind', 'LedgerEntry'] },
        { from: `${S}/backend.ts`, to: `${R}/webhooks/webhooks.ts`, names: ['WebhooksRole'] },
        { from: `${S}/backend.ts`, to: `${R}/prober-replies.ts`, names: ['RecentProbeResult', 'ProberRepliesRole'] },
        { from: `${S}/backend.ts`, to: `${R}/policies.ts`, names: ['PoliciesRole'] },
        { from: `${S}/policy-records.ts`, to: `${R}/policies.ts`, names: ['PolicyRules', 'PolicyVersion', 'DEFAULT_RULES'] },
        { from: `${S}/backend.ts`, to: `${R}/feedback/feedback.ts`, names: ['FeedbackRole'] },
      ],
      headers: {
        [`${S}/api-keys.ts`]: `/**
 * What names an API key, shared by the roles that authenticate with one (accounts) and manage
 * them (key management): its mode, what authentication yields, and the row that yields it.
 */
`,
        [`${S}/stored-result.ts`]: `/**
 * A final result as the store keeps it, for single checks and batch items alike, and as the API
 * renders it. Plain data, the same on every dialect.
 */
`,
        [`${S}/batch-request.ts`]: `/**
 * What a batch request is, shared by the roles that write or read one (batches, list batches,
 * account views, webhook events): its mode and state, its new items, its counters and its
 * finalization.
 */
`,
        [`${R}/batches/batch-records.ts`]: `/**
 * Role: batches (the records it takes and returns): a new request, its view with counters, an
 * item's result and a slice of the results.
 */
`,
        [`${R}/engine-state.ts`]: `/**
 * Role: the engine's shared state. No transaction script of its own: SQLite serves it from the
 * engine's in-memory limiter and cache, PostgreSQL from postgres/limiter.ts and
 * postgres/facts-cache.ts.
 */
`,
      },
    },
    {
      // Not applied yet: for the lead, once the lease work has merged (names may need the lease
      // branch's changes). Empties store.ts, owner-records.ts and rows.ts, which are then removed.
      name: 'lease-roles',
      declarations: [
        { from: `${S}/backend.ts`, to: `${R}/verifications.ts`, names: ['VerificationsRole'] },
        { from: `${S}/store.ts`, to: `${R}/verifications.ts`, names: ['VerificationState', 'VerificationRecord', 'StartVerificationInput', 'StartVerificationOutcome'] },
        { from: `${S}/rows.ts`, to: `${R}/verifications.ts`, names: ['VerificationRow', 'toVerificationRecord'] },
        { from: `${S}/backend.ts`, to: `${R}/lists.ts`, names: ['ListsRole'] },
        { from: `${S}/store.ts`, to: `${R}/lists.ts`, names: ['ListState', 'ListRecord'] },
        { from: `${S}/rows.ts`, to: `${R}/lists.ts`, names: ['ListRow', 'toList'] },
        { from: `${S}/backend.ts`, to: `${R}/list-batches.ts`, names: ['ListBatchesRole'] },
        { from: `${S}/backend.ts`, to: `${R}/work-queue.ts`, names: ['WorkQueueRole'] },
        { from: `${S}/store.ts`, to: `${R}/work-queue.ts`, names: ['ClaimedItem', 'ClaimInput'] },
        { from: `${S}/backend.ts`, to: `${R}/list-files.ts`, names: ['ListFilesRole'] },
        { from: `${S}/owner-records.ts`, to: `${R}/list-files.ts`, names: ['ColumnChoice', 'ListFile', 'BadRow', 'ListOverview'] },
      ],
    },
  ],
};

export default plan;

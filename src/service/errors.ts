/**
 * The one catalog of error codes that cross the wire (docs/design.md §4): each code with its default
 * message and the condition that raises it. The service refuses with these codes as data
 * (`Refusal`); how a code is spoken over HTTP (its status) is the API's business and lives only
 * in src/api/errors.ts, which must give every code here a status (a missing one fails the
 * typecheck). docs/errors.md is checked against this table by test/api/error-catalog.test.ts.
 *
 * Internal failures (a bug, a bad configuration) are a different kind: they are thrown, logged,
 * and reach a caller only as `internal_error` with a generic message.
 */
export const ERROR_CATALOG = {
  invalid_request: {
    message: 'The request does not match the schema.',
    when: 'The body or headers break the schema: not JSON, not UTF-8, a Content-Type other than application/json, an unknown field, a wrong type, both or neither of `emails`/`listId`, more than 10,000 emails, a body over 16 MiB, or broken HTTP framing.',
  },
  invalid_email: {
    message: 'An address fails the syntax check.',
    when: 'An address given in the body fails the syntax check (RFC 5321/6531 with IDNA); in a batch the message names its index.',
  },
  missing_idempotency_key: {
    message: 'The Idempotency-Key header is required.',
    when: 'A POST route without an `Idempotency-Key` header, or with an empty one.',
  },
  idempotency_key_reused: {
    message: 'This Idempotency-Key was used with a different body.',
    when: 'The same account, key mode, route and `Idempotency-Key` were used within 24 h with a different body.',
  },
  unauthorized: {
    message: 'A valid API key is required (X-Api-Key or Authorization: Bearer).',
    when: 'No key, a malformed, unknown or revoked key, or more than one `Authorization` header.',
  },
  insufficient_credits: {
    message: 'The account does not have enough credits.',
    when: 'A live key whose account balance is below 1 (single check) or below the number of unique addresses (batch). Nothing is held.',
  },
  list_not_found: {
    message: 'No such list in this account.',
    when: '`listId` names no list of this account (another account’s list is not found either).',
  },
  request_not_found: {
    message: 'No such request in this account.',
    when: 'The `{id}` is malformed, unknown, another account’s, or past its retention.',
  },
  cursor_not_found: {
    message: 'The cursor is unknown for this request.',
    when: 'A `cursor` that this request never issued (malformed, forged, or another request’s).',
  },
  not_found: {
    message: 'No such route.',
    when: 'A path or method outside the interface (not an API code of docs/design.md §4: the transport’s own 404).',
  },
  list_not_ready: {
    message: 'The list is not ready.',
    when: 'The list named by `listId` is still importing, or its import failed.',
  },
  list_too_large: {
    message: 'The list has more entries than this service verifies in one batch.',
    when: 'The list named by `listId` has more entries than `PRESEND_LIST_MAX_ENTRIES` (default 1,000,000); the message gives both numbers. Nothing is held.',
  },
  too_much_outstanding_work: {
    message: 'The account has too many unfinished batch items; retry after the delay in Retry-After.',
    when: 'The batch would take the account’s unfinished batch items (over all its open batches) past `PRESEND_ACCOUNT_MAX_OUTSTANDING` (default 2,000,000); `Retry-After` says when to try again. Nothing is held.',
  },
  rate_limited: {
    message: 'Too many requests; retry after the delay in Retry-After.',
    when: 'The key’s token bucket is empty, or the key or its account already has as many single checks running as it may (its cap, or its fair share of a busy process); `Retry-After` says how many seconds to wait.',
  },
  internal_error: {
    message: 'Internal error.',
    when: 'A bug: logged with its cause, answered with this generic message only (not an API code of docs/design.md §4).',
  },
  engine_unavailable: {
    message: 'The verification engine failed.',
    when: 'The engine threw (a bug or an outage, never an address’s behaviour); nothing is billed. Also the `errorCode` of a batch whose every item failed.',
  },
  service_unavailable: {
    message: 'The service is overloaded or shutting down; retry later.',
    when: 'The process is draining for shutdown, too many single checks are in flight, the store failed a statement or cannot be reached (any route: the database is full, read-only, gone or refusing connections; nothing is held or billed, and a POST retried with its Idempotency-Key is safe), a live key calls a server whose live engine cannot probe (no PRESEND_HELO_NAME / PRESEND_MAIL_FROM; nothing is billed), or a single check’s node stalled past the check’s lease and another node ended it (nothing is billed; a new Idempotency-Key starts a new check).',
  },
} as const satisfies Record<string, { message: string; when: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** A use case said no: the code names why; the message, when given, is more specific than the default. */
export interface Refusal {
  kind: 'refused';
  code: ErrorCode;
  message?: string;
  /** Seconds before asking again, when the refusal is a "slow down" (sent as Retry-After). */
  retryAfterSeconds?: number;
}

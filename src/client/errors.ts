/**
 * What can go wrong when talking to Presend, as distinct types so callers can branch on
 * them: the service said no (PresendApiError, with the spec's error body), the answer was
 * not what the spec promises (PresendResponseError), the network failed after the allowed
 * retries (PresendNetworkError), or a full export cannot be proven complete
 * (IncompleteExportError, docs/interface-spec.md §4 "Full export").
 */

export class PresendApiError extends Error {
  override readonly name = 'PresendApiError';
  constructor(
    /** HTTP status of the answer. */
    readonly status: number,
    /** The service's snake_case error code (docs/design.md §4), e.g. `insufficient_credits`. */
    readonly code: string,
    message: string,
    /** Correlation id from the error body (or the X-Request-Id header). */
    readonly requestId: string | null,
    /** Seconds from a 429's Retry-After header, when there was one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** The service answered, but not with what the spec promises (not JSON, or the wrong shape). */
export class PresendResponseError extends Error {
  override readonly name = 'PresendResponseError';
  constructor(
    readonly status: number,
    message: string,
    readonly requestId: string | null,
    /** The Content-Type of the answer, to tell "wrong base URL" from "broken JSON". */
    readonly contentType: string | null,
  ) {
    super(message);
  }
}

/**
 * No answer at all (connection refused or reset, timeout) after the allowed retries.
 * `idempotencyKey` is set for POSTs: the service may have acted on the request, so the safe
 * next step is the same call with the same key, never a new one.
 */
export class PresendNetworkError extends Error {
  override readonly name = 'PresendNetworkError';
  constructor(
    message: string,
    readonly idempotencyKey: string | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type IncompleteExportReason =
  | 'repeated_cursor'
  | 'missing_next_cursor'
  | 'invalid_page'
  | 'duplicate_item'
  | 'not_finalized';

/** A full export stopped before it could prove the collection complete. */
export class IncompleteExportError extends Error {
  override readonly name = 'IncompleteExportError';
  constructor(
    readonly reason: IncompleteExportReason,
    message: string,
    /** How many items were yielded before the export stopped. */
    readonly itemsReceived: number,
    /** The last cursor that was followed successfully, to resume or report. */
    readonly lastCursor: string | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isRateLimited(error: unknown): error is PresendApiError {
  return error instanceof PresendApiError && error.status === 429;
}

/**
 * The one catalog of errors that cross the wire (DESIGN.md §4). Every code has its status and
 * a default message; the OpenAPI document and the tests read this table, so a new code cannot
 * go undocumented. Internal failures (bugs, bad configuration) are not listed here: they
 * surface as a 500 with a generic body and are logged.
 */
export const ERROR_CATALOG = {
  invalid_request: { status: 400, message: 'The request does not match the schema.' },
  invalid_email: { status: 400, message: 'An address fails the syntax check.' },
  missing_idempotency_key: { status: 400, message: 'The Idempotency-Key header is required.' },
  // 400 on /v1/verify, 422 on /v1/requests (DESIGN.md §4): same code, the route decides the status.
  idempotency_key_reused: { status: 400, message: 'This Idempotency-Key was used with a different body.' },
  unauthorized: { status: 401, message: 'A valid API key is required (X-Api-Key or Authorization: Bearer).' },
  insufficient_credits: { status: 402, message: 'The account does not have enough credits.' },
  list_not_found: { status: 404, message: 'No such list in this account.' },
  request_not_found: { status: 404, message: 'No such request in this account.' },
  cursor_not_found: { status: 404, message: 'The cursor is unknown for this request.' },
  // Not API codes of DESIGN.md §4: an unknown path, and a genuine bug.
  not_found: { status: 404, message: 'No such route.' },
  list_not_ready: { status: 422, message: 'The list is not ready.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the delay in Retry-After.' },
  internal_error: { status: 500, message: 'Internal error.' },
  engine_unavailable: { status: 502, message: 'The verification engine failed.' },
  service_unavailable: { status: 503, message: 'The service is overloaded or shutting down; retry later.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** Which codes each route can answer with (for OpenAPI and the tests). */
export const ROUTE_ERRORS: Record<string, readonly ErrorCode[]> = {
  'POST /v1/verify': [
    'invalid_request',
    'invalid_email',
    'missing_idempotency_key',
    'idempotency_key_reused',
    'unauthorized',
    'insufficient_credits',
    'rate_limited',
    'engine_unavailable',
    'service_unavailable',
  ],
  'POST /v1/requests': [
    'invalid_request',
    'invalid_email',
    'missing_idempotency_key',
    'unauthorized',
    'insufficient_credits',
    'list_not_found',
    'list_not_ready',
    'idempotency_key_reused',
    'rate_limited',
    'service_unavailable',
  ],
  'GET /v1/requests/{id}': ['unauthorized', 'request_not_found', 'rate_limited'],
  'GET /v1/requests/{id}/results': ['unauthorized', 'request_not_found', 'cursor_not_found', 'rate_limited'],
};

/** An error to send: the code decides the status; the message may be more specific than the default. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message ?? ERROR_CATALOG[code].message);
    this.status = status ?? ERROR_CATALOG[code].status;
    this.name = 'ApiError';
  }
}

/**
 * How the service's error codes (src/service/errors.ts, the one catalog) are spoken over HTTP:
 * the status of each code, the route-specific exceptions, and which codes each route of the
 * interface can answer with. The OpenAPI document, /docs, docs/errors.md and the tests read
 * these tables, so a code cannot go undocumented and a route cannot answer a status the spec
 * does not list for it (test/api/error-catalog.test.ts).
 */
import { ERROR_CATALOG } from '../service/errors.js';
import type { ErrorCode, Refusal } from '../service/errors.js';

export { ERROR_CATALOG };
export type { ErrorCode };

/** Every code's status; `satisfies` makes a code without a status (or a status for no code) a type error. */
export const HTTP_STATUS = {
  invalid_request: 400,
  invalid_email: 400,
  missing_idempotency_key: 400,
  idempotency_key_reused: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  list_not_found: 404,
  request_not_found: 404,
  cursor_not_found: 404,
  not_found: 404,
  list_not_ready: 422,
  list_too_large: 422,
  rate_limited: 429,
  too_much_outstanding_work: 429,
  internal_error: 500,
  engine_unavailable: 502,
  service_unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

/** The four routes of docs/interface-spec.md §4, named as the spec writes them. */
export type RouteName = 'POST /v1/verify' | 'POST /v1/requests' | 'GET /v1/requests/{id}' | 'GET /v1/requests/{id}/results';

interface RouteErrors {
  /** docs/interface-spec.md §7: the error statuses the route may answer with, exactly. */
  statuses: readonly number[];
  /** The codes the route answers with; together their statuses are `statuses`. */
  codes: readonly ErrorCode[];
  /** Codes whose status differs on this route (docs/design.md §4). */
  overrides?: Partial<Record<ErrorCode, number>>;
}

export const ROUTE_ERRORS: Record<RouteName, RouteErrors> = {
  'POST /v1/verify': {
    statuses: [400, 401, 402, 429, 502, 503],
    codes: [
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
  },
  'POST /v1/requests': {
    statuses: [400, 401, 402, 404, 422, 429, 503],
    codes: [
      'invalid_request',
      'invalid_email',
      'missing_idempotency_key',
      'unauthorized',
      'insufficient_credits',
      'list_not_found',
      'list_not_ready',
      'list_too_large',
      'idempotency_key_reused',
      'rate_limited',
      'too_much_outstanding_work',
      'service_unavailable',
    ],
    // docs/design.md §4: a reused key with a different body is "well-formed but refused" here.
    overrides: { idempotency_key_reused: 422 },
  },
  'GET /v1/requests/{id}': { statuses: [401, 404, 429], codes: ['unauthorized', 'request_not_found', 'rate_limited'] },
  'GET /v1/requests/{id}/results': {
    statuses: [401, 404, 429],
    codes: ['unauthorized', 'request_not_found', 'cursor_not_found', 'rate_limited'],
  },
};

export const ROUTE_NAMES = Object.keys(ROUTE_ERRORS) as RouteName[];

/** The status of `code`, on `route` when it is answered there. */
export function statusOf(code: ErrorCode, route?: RouteName): number {
  return (route && ROUTE_ERRORS[route].overrides?.[code]) ?? HTTP_STATUS[code];
}

/** An error to send: the code decides the status (per route where docs/design.md §4 says so); the message may be more specific than the default. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly headers: Record<string, string> = {},
    route?: RouteName,
  ) {
    super(message ?? ERROR_CATALOG[code].message);
    this.status = statusOf(code, route);
    this.name = 'ApiError';
  }
}

/** A service refusal answered on `route`. */
export function refusalError(route: RouteName, refused: Refusal): ApiError {
  // Every 429 says when to retry (docs/interface-spec.md §7); other refusals when they know.
  const seconds = refused.retryAfterSeconds ?? (statusOf(refused.code, route) === 429 ? 1 : undefined);
  const headers: Record<string, string> = seconds === undefined ? {} : { 'retry-after': String(Math.max(1, Math.ceil(seconds))) };
  return new ApiError(refused.code, refused.message, headers, route);
}

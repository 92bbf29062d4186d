/** The error part of each route's response map, and the words that document each error status. */
import type { TSchema } from '@sinclair/typebox';
import { ERROR_CATALOG, ROUTE_ERRORS, statusOf } from './errors.js';
import type { ErrorCode, RouteName } from './errors.js';
import { ErrorBody } from './schemas.js';

/** Every error status docs/interface-spec.md §7 lists for `route`, each answered with the Error body. */
export function errorResponses(route: RouteName): Record<number, TSchema> {
  return Object.fromEntries(ROUTE_ERRORS[route].statuses.map((status) => [status, ErrorBody]));
}

/** The codes `route` answers with `status`. */
export function codesFor(route: RouteName, status: number): ErrorCode[] {
  return ROUTE_ERRORS[route].codes.filter((code) => statusOf(code, route) === status);
}

/** The OpenAPI description of an error status of `route`: each code it can carry, with its meaning. */
export function errorDescription(route: RouteName, status: number): string {
  const lines = codesFor(route, status).map((code) => `- \`${code}\`: ${ERROR_CATALOG[code].when}`);
  const retry =
    status === 429
      ? '\n\nWait at least `Retry-After` seconds (an integer ≥ 1) before retrying.'
      : status === 503
        ? '\n\nTemporary: retry after `Retry-After` seconds.'
        : '';
  return `${lines.join('\n')}${retry}`;
}

export const SECURITY: Array<Record<string, string[]>> = [{ ApiKey: [] }, { Bearer: [] }];

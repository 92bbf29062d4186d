/** Response schema maps per route, with each error status described by its catalog codes (for OpenAPI). */
import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { ERROR_CATALOG, ROUTE_ERRORS } from './errors.js';
import type { ErrorCode } from './errors.js';
import { ErrorBody } from './schemas.js';

/** Statuses a route answers with an error, each documented with the codes that produce it. */
export function errorResponses(route: string, statuses: readonly number[], overrides: Partial<Record<ErrorCode, number>> = {}): Record<number, TSchema> {
  const codes = ROUTE_ERRORS[route] ?? [];
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    const here = codes.filter((c) => (overrides[c] ?? ERROR_CATALOG[c].status) === status);
    const text = here.map((c) => `\`${c}\` — ${ERROR_CATALOG[c].message}`).join('; ');
    const extra = status === 429 ? ' Carries `Retry-After` (whole seconds, at least 1) and `RateLimit-*` headers.' : '';
    out[status] = Type.Object(ErrorBody.properties, {
      additionalProperties: false,
      description: `${text || 'Error.'}${extra}`,
      'x-error-codes': here,
    });
  }
  return out;
}

export const SECURITY: Array<Record<string, string[]>> = [{ ApiKey: [] }, { Bearer: [] }];

/** Asserts a response body against the interface schema it claims to follow. */
import assert from 'node:assert/strict';
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
// Importing the schemas registers the formats (date-time, uuid, email) and the string-enum kind they use.
import { BatchRequest, ErrorBody, ResultsPage, VerifyResult } from '../../src/api/schemas.js';

export function assertMatches(schema: TSchema, body: unknown): void {
  if (!Value.Check(schema, body)) {
    const errors = [...Value.Errors(schema, body)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
    assert.fail(`body does not match ${String(schema.title)}: ${errors.join('; ')}\n${JSON.stringify(body).slice(0, 800)}`);
  }
}

export const isVerifyResult = (b: unknown) => assertMatches(VerifyResult, b);
export const isBatchRequest = (b: unknown) => assertMatches(BatchRequest, b);
export const isResultsPage = (b: unknown) => assertMatches(ResultsPage, b);

/** Every error: the spec's body, X-Request-Id, and the code expected. */
export function isError(res: { status: number; headers: Headers; body: any }, status: number, code: string): void { // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.equal(res.status, status, JSON.stringify(res.body));
  assertMatches(ErrorBody, res.body);
  assert.equal(res.body.error.code, code);
  assert.ok(res.headers.get('x-request-id'));
  assert.equal(res.body.error.requestId, res.headers.get('x-request-id'));
}

/**
 * Shape checks for answers, with the interface's own schemas (src/api/schemas.ts). The client
 * trusts nothing it cannot use: a body that does not match what the spec promises is reported
 * as a PresendResponseError instead of flowing on as a half-filled object. Each check returns
 * the first problem in words, or null when the shape holds.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { BatchRequest, ResultsPage, VerifyResult } from '../api/schemas.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Compiled on first use: a results page of 200 envelopes is checked in well under a millisecond. */
function lazyCheck<T extends TSchema>(schema: T): () => TypeCheck<T> {
  let compiled: TypeCheck<T> | null = null;
  return () => (compiled ??= TypeCompiler.Compile(schema));
}

const verifyResult = lazyCheck(VerifyResult);
const batchRequest = lazyCheck(BatchRequest);
const resultsPage = lazyCheck(ResultsPage);

/** `/results/3/presend/status` → `results[3].presend.status`. */
function fieldName(path: string): string {
  return path
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : `${i === 0 ? '' : '.'}${part.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('');
}

function firstProblem<T extends TSchema>(check: TypeCheck<T>, body: unknown): string | null {
  if (!isObject(body)) return 'the body is not a JSON object';
  if (check.Check(body)) return null;
  const first = check.Errors(body).First();
  if (!first) return 'the body does not match the schema';
  const field = fieldName(first.path);
  if (first.value === undefined) return `${field} is missing`;
  return `${field || 'the body'}: ${first.message.toLowerCase()} (got ${JSON.stringify(first.value)?.slice(0, 80)})`;
}

export function checkVerifyResult(body: unknown): string | null {
  return firstProblem(verifyResult(), body);
}

export function checkBatchRequest(body: unknown): string | null {
  return firstProblem(batchRequest(), body);
}

/** Told apart from other shape problems: the spec names it as a sign of an incomplete export. */
export const MISSING_NEXT_CURSOR = 'nextCursor is missing';

/** A results page. */
export function checkResultsPage(body: unknown): string | null {
  if (isObject(body) && !('nextCursor' in body)) return MISSING_NEXT_CURSOR;
  return firstProblem(resultsPage(), body);
}

/**
 * The error body of an error status, leniently: a code this SDK does not know yet (a newer
 * server) is still an error body, so the code is read as a string, not as the catalog's enum.
 */
export function asErrorBody(body: unknown): { code: string; message: string; requestId: string } | null {
  if (!isObject(body) || !isObject(body.error)) return null;
  const { code, message, requestId } = body.error;
  if (typeof code !== 'string' || typeof message !== 'string') return null;
  return { code, message, requestId: typeof requestId === 'string' ? requestId : '' };
}

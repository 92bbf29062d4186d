/**
 * Shape checks for answers. The client trusts nothing it cannot use: a body that lacks what
 * the spec marks required is reported as a PresendResponseError instead of flowing on as a
 * half-filled object. Each check returns the problem in words, or null when the shape holds.
 */
import type { ApiErrorBody } from './types.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkEnvelope(value: unknown, where: string): string | null {
  if (!isObject(value)) return `${where} is missing or not an object`;
  if (value.contract_version !== 1) return `${where}.contract_version is not 1`;
  if (typeof value.status !== 'string') return `${where}.status is not a string`;
  if (typeof value.outcome !== 'string') return `${where}.outcome is not a string`;
  if (!Array.isArray(value.reasons)) return `${where}.reasons is not an array`;
  if (!isObject(value.billing)) return `${where}.billing is missing`;
  return null;
}

export function checkVerifyResult(body: unknown): string | null {
  if (!isObject(body)) return 'the body is not a JSON object';
  if (!['completed', 'queued', 'running'].includes(body.status as string)) return 'status is not completed, queued or running';
  if (typeof body.requestId !== 'string') return 'requestId is missing';
  return checkEnvelope(body.presend, 'presend');
}

export function checkBatchRequest(body: unknown): string | null {
  if (!isObject(body)) return 'the body is not a JSON object';
  const request = body.request;
  if (!isObject(request)) return 'request is missing';
  if (typeof request.id !== 'string' || request.id === '') return 'request.id is missing';
  if (typeof request.state !== 'string') return 'request.state is missing';
  for (const flag of ['partial', 'finalized', 'countsMayChange']) {
    if (typeof request[flag] !== 'boolean') return `request.${flag} is not a boolean`;
  }
  if (!isObject(body.counters)) return 'counters is missing';
  for (const [key, value] of Object.entries(body.counters)) {
    if (!Number.isInteger(value) || (value as number) < 0) return `counters.${key} is not a non-negative integer`;
  }
  if (typeof body.requestId !== 'string') return 'requestId is missing';
  return null;
}

/** Told apart from other shape problems: the spec names it as a sign of an incomplete export. */
export const MISSING_NEXT_CURSOR = 'nextCursor is missing';

/** A results page. */
export function checkResultsPage(body: unknown): string | null {
  if (!isObject(body)) return 'the body is not a JSON object';
  if (typeof body.jobId !== 'string') return 'jobId is missing';
  if (!Array.isArray(body.results)) return 'results is not an array';
  if (!('nextCursor' in body)) return MISSING_NEXT_CURSOR;
  if (body.nextCursor !== null && (typeof body.nextCursor !== 'string' || body.nextCursor === '')) {
    return 'nextCursor is neither null nor a non-empty string';
  }
  for (const flag of ['partial', 'finalized', 'countsMayChange']) {
    if (typeof body[flag] !== 'boolean') return `${flag} is not a boolean`;
  }
  for (const [index, item] of body.results.entries()) {
    if (!isObject(item)) return `results[${index}] is not an object`;
  }
  return null;
}

export function asErrorBody(body: unknown): ApiErrorBody['error'] | null {
  if (!isObject(body) || !isObject(body.error)) return null;
  const { code, message, requestId } = body.error;
  if (typeof code !== 'string' || typeof message !== 'string') return null;
  return { code, message, requestId: typeof requestId === 'string' ? requestId : '' };
}

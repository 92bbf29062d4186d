/**
 * One HTTP exchange with Presend, with the retry rules of retry-policy.ts applied. Every
 * attempt of one logical operation carries the same Idempotency-Key, so a POST repeated after
 * a lost answer is a replay on the service, never a second operation (docs/interface-spec.md §4).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PresendApiError, PresendNetworkError, PresendResponseError } from './errors.js';
import { isRetryableStatus, nextDelay, parseRetryAfter, type RetryPolicy } from './retry-policy.js';
import { asErrorBody } from './validate.js';

export interface RetryEvent {
  method: string;
  path: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The status that caused the retry, or null for a network failure. */
  status: number | null;
  /** The service's error code when the answer had one (e.g. `rate_limited`). */
  code: string | null;
}

export interface HttpSettings {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  userAgent: string;
  retry: RetryPolicy;
  onRetry?: (event: RetryEvent) => void;
}

export interface HttpCall {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  /** Per-attempt timeout; a timed-out attempt counts as a network failure. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  body: unknown;
  requestId: string | null;
}

type Attempt =
  | { kind: 'answer'; answer: HttpAnswer }
  | { kind: 'retryable'; error: Error; status: number | null; code: string | null; serverDelayMs: number | null };

export function buildUrl(baseUrl: string, path: string, query: HttpCall['query']): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

function headersFor(settings: HttpSettings, call: HttpCall): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': settings.userAgent,
    'x-api-key': settings.apiKey,
  };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
  return headers;
}

async function readBody(response: Response): Promise<{ parsed: boolean; value: unknown }> {
  const text = await response.text();
  try {
    return { parsed: true, value: JSON.parse(text) as unknown };
  } catch {
    return { parsed: false, value: text };
  }
}

async function attempt(settings: HttpSettings, call: HttpCall): Promise<Attempt> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
  let response: Response;
  let body: { parsed: boolean; value: unknown };
  try {
    response = await settings.fetch(buildUrl(settings.baseUrl, call.path, call.query), {
      method: call.method,
      headers: headersFor(settings, call),
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
    });
    body = await readBody(response);
  } catch (error) {
    // The caller's own abort ends the operation; anything else is a lost exchange.
    if (call.signal?.aborted) throw call.signal.reason;
    const reason = timeout.aborted ? `no answer within ${call.timeoutMs} ms` : describeNetworkError(error);
    return { kind: 'retryable', error: networkError(settings, call, reason, error), status: null, code: null, serverDelayMs: null };
  }

  const requestId = response.headers.get('x-request-id');
  const contentType = response.headers.get('content-type');
  const status = response.status;
  if (status >= 200 && status < 300) {
    // A success with a broken body is final: repeating it would not make the body valid.
    if (!body.parsed) {
      throw new PresendResponseError(status, `HTTP ${status} answer is not JSON (${contentType ?? 'no content type'}); is the base URL a Presend service?`, requestId, contentType);
    }
    return { kind: 'answer', answer: { status, body: body.value, requestId } };
  }

  const errorBody = body.parsed ? asErrorBody(body.value) : null;
  const error: Error = errorBody
    ? new PresendApiError(status, errorBody.code, errorBody.message, errorBody.requestId || requestId, retryAfterSeconds(response))
    : new PresendResponseError(status, `HTTP ${status} without the error body the spec promises (${contentType ?? 'no content type'}); is the base URL a Presend service?`, requestId, contentType);
  if (isRetryableStatus(status)) {
    const serverDelayMs = parseRetryAfter(response.headers.get('retry-after'));
    return { kind: 'retryable', error, status, code: errorBody?.code ?? null, serverDelayMs };
  }
  throw error;
}

function retryAfterSeconds(response: Response): number | null {
  const ms = parseRetryAfter(response.headers.get('retry-after'));
  return ms === null ? null : Math.ceil(ms / 1000);
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

/** Connection refused means the request never reached the service; anything later may have. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

function networkError(settings: HttpSettings, call: HttpCall, reason: string, cause: unknown): PresendNetworkError {
  const advice =
    call.idempotencyKey && !NEVER_SENT.has(reason)
      ? ` The service may have acted on it: repeating it with Idempotency-Key ${call.idempotencyKey} is safe, a new key is not.`
      : '';
  return new PresendNetworkError(`${call.method} ${settings.baseUrl}${call.path} failed: ${reason}.${advice}`, call.idempotencyKey ?? null, { cause });
}

/** Sends `call`, retrying what the policy allows; returns the first final answer or throws. */
export async function send(settings: HttpSettings, call: HttpCall): Promise<HttpAnswer> {
  let waitedMs = 0;
  for (let retry = 0; ; retry += 1) {
    const result = await attempt(settings, call);
    if (result.kind === 'answer') return result.answer;
    const delay = nextDelay(settings.retry, retry, waitedMs, result.serverDelayMs);
    if (delay === null) throw result.error;
    settings.onRetry?.({ method: call.method, path: call.path, retry: retry + 1, delayMs: delay, status: result.status, code: result.code });
    await sleep(delay, undefined, call.signal ? { signal: call.signal } : undefined);
    waitedMs += delay;
  }
}

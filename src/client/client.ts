/**
 * PresendClient: one method per route of docs/interface-spec.md §4, plus the two loops every
 * caller needs (wait for a batch, export all of its results). The CLI and the MCP server are
 * thin layers over this class, so all three retry, authenticate and fail the same way.
 */
import { randomUUID } from 'node:crypto';
import { PresendResponseError } from './errors.js';
import { planBatches, type BatchPlan, type PlanOptions } from './batch-plan.js';
import { createBatches, exportBatches, waitForBatches, type CreateBatchesOptions, type ExportBatchesOptions, type WaitForBatchesOptions } from './batches.js';
import { exportResults, type ExportOptions } from './export.js';
import { send, type HttpAnswer, type HttpCall, type HttpSettings, type RetryEvent } from './http.js';
import { DEFAULT_RETRY_POLICY } from './retry-policy.js';
import type { BatchInput, BatchRequest, ResultItem, ResultsPage, VerifyInput, VerifyResult } from './types.js';
import { checkBatchRequest, checkResultsPage, checkVerifyResult } from './validate.js';
import { waitForRequest, type WaitOptions } from './wait.js';
import type { CallOptions, PageOptions, SpendOptions } from './call-options.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export interface PresendClientOptions {
  /** Default `http://127.0.0.1:8080` (docs/design.md §2). */
  baseUrl?: string;
  /** `ps_live.…` or `ps_test.…`. Kept private: never printed, never part of an error. */
  apiKey: string;
  /** Injected fetch (defaults to the global one), e.g. to add a proxy agent. */
  fetch?: typeof fetch;
  /** Extra attempts after the first for 429, 502/503/504 and lost connections. Default 4. */
  maxRetries?: number;
  /** Cap on the total time spent waiting between retries of one operation. Default 60 s. */
  maxRetryWaitMs?: number;
  /** Per-attempt timeout for the GET routes and batch creation. Default 30 s. */
  requestTimeoutMs?: number;
  userAgent?: string;
  /** Called before each retry (e.g. to tell a user "rate limited, waiting 2 s"). */
  onRetry?: (event: RetryEvent) => void;
}

/** Headroom over the service's bounded wait, so the client never gives up before the server. */
const VERIFY_TIMEOUT_HEADROOM_MS = 15_000;
const MAX_VERIFY_WAIT_MS = 120_000;

export class PresendClient {
  readonly baseUrl: string;
  readonly #http: HttpSettings;
  readonly #requestTimeoutMs: number;

  constructor(options: PresendClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('PresendClient needs an apiKey (set PRESEND_API_KEY)');
    }
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    if (!/^https?:\/\//.test(this.baseUrl)) throw new TypeError(`baseUrl must start with http:// or https://, got "${this.baseUrl}"`);
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#http = {
      baseUrl: this.baseUrl,
      apiKey: options.apiKey.trim(),
      fetch: options.fetch ?? globalThis.fetch,
      userAgent: options.userAgent ?? 'presend-client/0.1.0',
      retry: {
        ...DEFAULT_RETRY_POLICY,
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options.maxRetryWaitMs !== undefined ? { maxRetryWaitMs: options.maxRetryWaitMs } : {}),
      },
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    };
  }

  /**
   * POST /v1/verify. A 202 (the bounded wait ended first) is returned, not retried: it has
   * `engineJobId`, a `pending` envelope and a null decision — record it, do not resubmit.
   */
  async verify(input: VerifyInput, options: SpendOptions = {}): Promise<VerifyResult> {
    const answer = await this.#call({
      method: 'POST',
      path: '/v1/verify',
      body: input,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      timeoutMs: Math.max(this.#requestTimeoutMs, (input.timeoutMs ?? MAX_VERIFY_WAIT_MS) + VERIFY_TIMEOUT_HEADROOM_MS),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return expectShape<VerifyResult>(answer, checkVerifyResult);
  }

  /** POST /v1/requests: 202 for a new batch, 200 with `replayed: true` for a replay. */
  async createRequest(input: BatchInput, options: SpendOptions = {}): Promise<BatchRequest> {
    const answer = await this.#call({
      method: 'POST',
      path: '/v1/requests',
      body: input,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      timeoutMs: this.#requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return expectShape<BatchRequest>(answer, checkBatchRequest);
  }

  /** GET /v1/requests/{id}: state, progress flags and counters. */
  async getRequest(id: string, options: CallOptions = {}): Promise<BatchRequest> {
    const answer = await this.#call({
      method: 'GET',
      path: `/v1/requests/${encodeURIComponent(id)}`,
      timeoutMs: this.#requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return expectShape<BatchRequest>(answer, checkBatchRequest);
  }

  /** GET /v1/requests/{id}/results: one page. For everything, use `exportResults`. */
  async getResults(id: string, options: PageOptions = {}): Promise<ResultsPage> {
    const answer = await this.#call({
      method: 'GET',
      path: `/v1/requests/${encodeURIComponent(id)}/results`,
      query: { limit: options.limit, cursor: options.cursor },
      timeoutMs: this.#requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return expectShape<ResultsPage>(answer, checkResultsPage);
  }

  /** Polls GET /v1/requests/{id} until the batch is completed or failed. */
  waitForRequest(id: string, options: WaitOptions = {}): Promise<BatchRequest> {
    return waitForRequest(this, id, options);
  }

  /** Every result of a batch, once each, following `nextCursor` until the collection is complete. */
  exportResults(id: string, options: ExportOptions = {}): AsyncGenerator<ResultItem, void, undefined> {
    return exportResults(this, id, options);
  }

  /** Creates every batch of a plan (batch-plan.ts), each with its own derived Idempotency-Key. */
  createBatches(plan: BatchPlan, options: CreateBatchesOptions = {}): Promise<BatchRequest[]> {
    return createBatches(this, plan, options);
  }

  /** Polls several batches until every one is completed or failed. */
  waitForBatches(ids: readonly string[], options: WaitForBatchesOptions = {}): Promise<BatchRequest[]> {
    return waitForBatches(this, ids, options);
  }

  /** Every result of several batches, one batch after the other. */
  exportBatches(ids: readonly string[], options: ExportBatchesOptions = {}): AsyncGenerator<ResultItem, void, undefined> {
    return exportBatches(this, ids, options);
  }

  /**
   * Any number of addresses: plan (invalid ones set aside, duplicates removed, at most 10,000
   * per batch), create the batches and wait for all of them. Read the results with
   * `exportBatches(batches.map((b) => b.request.id))`.
   */
  async verifyInBatches(
    addresses: Iterable<string>,
    options: PlanOptions & CreateBatchesOptions & WaitForBatchesOptions = {},
  ): Promise<{ plan: BatchPlan; batches: BatchRequest[] }> {
    const plan = planBatches(addresses, options);
    const created = await this.createBatches(plan, options);
    const batches = await this.waitForBatches(
      created.map((batch) => batch.request.id),
      options,
    );
    return { plan, batches };
  }

  /** Keeps the key out of `console.log(client)` and util.inspect. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PresendClient { baseUrl: '${this.baseUrl}' }`;
  }

  #call(call: HttpCall): Promise<HttpAnswer> {
    return send(this.#http, call);
  }
}

function expectShape<T>(answer: HttpAnswer, check: (body: unknown) => string | null): T {
  const problem = check(answer.body);
  if (problem !== null) {
    throw new PresendResponseError(answer.status, `HTTP ${answer.status} answer does not match the spec: ${problem}`, answer.requestId, 'application/json');
  }
  return answer.body as T;
}

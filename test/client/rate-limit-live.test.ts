import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PresendApiError, PresendClient, type RetryEvent } from '../../src/client/index.js';
import { startLiveService, type LiveService } from './live-service.js';
import { sameRateLimits } from '../api/harness.js';

interface Sent {
  method: string;
  idempotencyKey: string | null;
  status: number;
  retryAfter: string | null;
}

function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    sent.push({
      method: init?.method ?? 'GET',
      idempotencyKey: new Headers(init?.headers).get('idempotency-key'),
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
    });
    return response;
  };
}

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

// One request per second with a burst of one.
describe('rate limiting against a real presend serve (1 request/s, burst 1)', () => {
  let service: LiveService;
  let key: string;

  before(async () => {
    service = await startLiveService({
      env: sameRateLimits(1, 1),
      accounts: [{ name: 'limited', credits: 0, test: true }],
    });
    key = service.keyOf('limited');
  });
  after(async () => {
    await service?.stop();
  });

  /** Spends the bucket: asks until the service says 429, so the very next request meets the limit. */
  async function drainBucket(): Promise<void> {
    const probe = new PresendClient({ baseUrl: service.baseUrl, apiKey: key, maxRetries: 0 });
    for (let probes = 0; probes < 50; probes += 1) {
      const error = await probe.getRequest(UNKNOWN_ID).catch((e: unknown) => e);
      if (error instanceof PresendApiError && error.status === 429) return;
    }
    throw new Error('the service never answered 429 at 1 request/s');
  }

  /**
   * Runs `attempt` right after draining the bucket until its first exchange met a 429 (a
   * machine stalled for a whole second could let a token refill in between; then try again).
   */
  async function whileRateLimited<T>(attempt: (sent: Sent[]) => Promise<T>): Promise<{ sent: Sent[]; outcome: T }> {
    for (let tries = 0; ; tries += 1) {
      await drainBucket();
      const sent: Sent[] = [];
      const outcome = await attempt(sent);
      if (sent[0]?.status === 429 || tries === 5) return { sent, outcome };
    }
  }

  test('a rate-limited POST waits at least Retry-After and is retried with the same Idempotency-Key', async () => {
    const retries: RetryEvent[] = [];
    const { sent, outcome: batch } = await whileRateLimited((sent) => {
      retries.length = 0;
      const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: key, fetch: recordingFetch(sent), onRetry: (event) => retries.push(event) });
      return client.createRequest({ emails: ['deliverable@example.com'] });
    });
    assert.equal(typeof batch.request.id, 'string');
    assert.equal(sent[0]?.status, 429);
    assert.equal(sent.at(-1)?.status, 202);
    assert.equal(new Set(sent.map((s) => s.idempotencyKey)).size, 1, 'every attempt carries the same key');
    assert.equal(retries.length, sent.length - 1);
    for (const [index, event] of retries.entries()) {
      const asked = Number(sent[index]?.retryAfter);
      assert.ok(asked >= 1, 'a 429 carries Retry-After ≥ 1');
      assert.ok(event.delayMs >= asked * 1000, `waited ${event.delayMs} ms for Retry-After ${asked}`);
      assert.equal(event.code, 'rate_limited');
    }
  });

  test('a 429 that outlives the wait budget surfaces as PresendApiError with code rate_limited and retryAfterSeconds', async () => {
    const { sent, outcome: error } = await whileRateLimited((sent) => {
      const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: key, fetch: recordingFetch(sent), maxRetryWaitMs: 100 });
      return client.getRequest(UNKNOWN_ID).catch((e: unknown) => e);
    });
    assert.ok(error instanceof PresendApiError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'rate_limited');
    assert.ok((error.retryAfterSeconds ?? 0) >= 1);
    assert.ok(error.requestId);
    assert.equal(sent.length, 1, 'a wait longer than the budget is not started');
  });

  test('with retries turned off, a 429 comes back at once instead of being waited out', async () => {
    const { sent, outcome: error } = await whileRateLimited((sent) => {
      const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: key, fetch: recordingFetch(sent), maxRetries: 0 });
      return client.verify({ email: 'deliverable@example.com' }).catch((e: unknown) => e);
    });
    assert.ok(error instanceof PresendApiError && error.status === 429);
    assert.equal(sent.length, 1);
  });
});

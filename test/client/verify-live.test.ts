import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PresendApiError, PresendClient } from '../../src/client/index.js';
import { startLiveService, type LiveService } from './live-service.js';

interface Sent {
  method: string;
  url: string;
  idempotencyKey: string | null;
  status: number;
}

/** The real fetch, with a note of every exchange, to see what the client actually sent. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    sent.push({ method: init?.method ?? 'GET', url: String(input), idempotencyKey: headers.get('idempotency-key'), status: response.status });
    return response;
  };
}

describe('single verification against a real presend serve', () => {
  let service: LiveService;
  let sandboxKey: string;
  let liveKey: string;

  before(async () => {
    service = await startLiveService({
      accounts: [
        { name: 'sandbox', credits: 0, test: true },
        { name: 'broke', credits: 0, test: false },
      ],
    });
    sandboxKey = service.keyOf('sandbox');
    liveKey = service.keyOf('broke');
  });
  after(async () => {
    await service?.stop();
  });

  test('a deliverable sandbox address comes back completed, with a send decision and engine metadata', async () => {
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: sandboxKey });
    const result = await client.verify({ email: 'deliverable@example.com' });
    assert.equal(result.status, 'completed');
    assert.equal(result.presend.contract_version, 1);
    assert.equal(result.presend.verdict, 'DELIVERABLE');
    assert.equal(result.presend.decision, 'send');
    assert.equal(result.presend.outcome, 'actionable_verdict');
    assert.ok(result.engine, 'a 200 carries engine metadata');
    assert.equal(result.engineJobId, undefined);
    assert.equal(typeof result.requestId, 'string');
  });

  test('an undeliverable sandbox address is suppressed', async () => {
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: sandboxKey });
    const result = await client.verify({ email: 'undeliverable+7@example.com' });
    assert.equal(result.presend.verdict, 'UNDELIVERABLE_NO_MAILBOX');
    assert.equal(result.presend.decision, 'suppress');
  });

  test('a check that outlasts the wait is returned as pending with its engineJobId, sent exactly once', async () => {
    const sent: Sent[] = [];
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: sandboxKey, fetch: recordingFetch(sent) });
    const result = await client.verify({ email: 'slow@example.com', timeoutMs: 50 });
    assert.notEqual(result.status, 'completed');
    assert.equal(typeof result.engineJobId, 'string');
    assert.equal(result.engine, undefined);
    assert.equal(result.presend.outcome, 'pending');
    assert.equal(result.presend.decision, null);
    assert.deepEqual(result.presend.billing, { disposition: 'released', credits: 0 });
    assert.deepEqual(
      sent.map((s) => [s.method, s.status]),
      [['POST', 202]],
    );
  });

  test('repeating a verification with its Idempotency-Key replays it instead of checking again', async () => {
    const sent: Sent[] = [];
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: sandboxKey, fetch: recordingFetch(sent) });
    const first = await client.verify({ email: 'catchall@example.com' }, { idempotencyKey: 'replay-test-1' });
    const second = await client.verify({ email: 'catchall@example.com' }, { idempotencyKey: 'replay-test-1' });
    assert.deepEqual(second.presend, first.presend);
    assert.deepEqual(second.engine, first.engine);
    assert.deepEqual(
      sent.map((s) => s.idempotencyKey),
      ['replay-test-1', 'replay-test-1'],
    );
  });

  test('each new verification carries a fresh Idempotency-Key', async () => {
    const sent: Sent[] = [];
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: sandboxKey, fetch: recordingFetch(sent) });
    await client.verify({ email: 'deliverable@example.com' });
    await client.verify({ email: 'deliverable@example.com' });
    assert.equal(sent.length, 2);
    assert.ok(sent[0]?.idempotencyKey && sent[1]?.idempotencyKey);
    assert.notEqual(sent[0]?.idempotencyKey, sent[1]?.idempotencyKey);
  });

  test('a wrong key is a PresendApiError 401 carrying the code and request id of the error body', async () => {
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: 'ps_test.' + 'x'.repeat(40) });
    await assert.rejects(client.verify({ email: 'deliverable@example.com' }), (error: unknown) => {
      assert.ok(error instanceof PresendApiError);
      assert.equal(error.status, 401);
      assert.equal(error.code, 'unauthorized');
      assert.ok(error.requestId);
      assert.ok(!error.message.includes('x'.repeat(40)), 'the key is not echoed');
      return true;
    });
  });

  test('a malformed address is a 400 with the invalid_email or invalid_request code, not retried', async () => {
    const sent: Sent[] = [];
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: sandboxKey, fetch: recordingFetch(sent) });
    await assert.rejects(client.verify({ email: 'not an address' }), (error: unknown) => {
      assert.ok(error instanceof PresendApiError);
      assert.equal(error.status, 400);
      assert.match(error.code, /^invalid_(email|request)$/);
      return true;
    });
    assert.equal(sent.length, 1);
  });

  test('a batch larger than the balance of a live key is refused with 402 insufficient_credits', async () => {
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: liveKey });
    await assert.rejects(client.createRequest({ emails: ['a@example.com', 'b@example.com'] }), (error: unknown) => {
      assert.ok(error instanceof PresendApiError);
      assert.equal(error.status, 402);
      assert.equal(error.code, 'insufficient_credits');
      return true;
    });
  });

  test('an unknown request id is 404 request_not_found', async () => {
    const client = new PresendClient({ baseUrl: service.baseUrl, apiKey: sandboxKey });
    await assert.rejects(client.getRequest('00000000-0000-4000-8000-000000000000'), (error: unknown) => {
      assert.ok(error instanceof PresendApiError);
      assert.equal(error.status, 404);
      assert.equal(error.code, 'request_not_found');
      return true;
    });
  });
});

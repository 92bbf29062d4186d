import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, newIdem } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertSpecAnswer } from './raw-http.js';
import { slowClient } from './slow-client.js';

/**
 * Slow clients (slowloris): a request whose body never finishes must not hold a connection,
 * and up to 4 MiB of buffered body, for ever. The service gets a 1 s request deadline here
 * (60 s by default); the deadline covers receiving the request, never the wait of /v1/verify.
 */
const REQUEST_TIMEOUT_MS = 1000;

// Three hundred stalled connections at once: a bounded-load test, in test/load/stalled-connections.load.ts.
describe('slow clients', () => {
  let h: Harness;
  let key = '';
  before(async () => {
    h = await startHarness({ server: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
    key = (await h.newAccount(100)).test;
  });
  after(async () => h?.close());

  test('a body that stops arriving is answered 400 with the error body and the connection is closed', async () => {
    const answer = await slowClient(h.url, key, null).answer;
    assert.ok(answer.endedByServer, 'the server never ended the stalled request');
    assertSpecAnswer('framing', answer, 'stalled body');
  });

  test('a body trickled a byte every 100 ms is cut off too: the deadline is for the whole request, not the gaps', async () => {
    const answer = await slowClient(h.url, key, 100).answer;
    assert.ok(answer.endedByServer, 'the server never ended the trickled request');
    assertSpecAnswer('framing', answer, 'trickled body');
  });

  test('a complete request may wait longer than the deadline for its answer', async () => {
    // slow@ takes 1.5 s in the test engines: longer than the 1 s request deadline.
    const r = await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email: 'slow@example.com', timeoutMs: 5000 } });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'completed');
  });

});

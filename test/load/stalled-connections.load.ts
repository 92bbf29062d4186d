/**
 * Three hundred stalled connections (slowloris at scale), a bounded-load test run by
 * `npm run test:load`: other clients are still served, and the server ends every stalled one at
 * its request deadline (1 s here, 60 s by default).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { rawRequest } from '../adversarial/raw-http.js';
import { slowClient } from '../adversarial/slow-client.js';

const REQUEST_TIMEOUT_MS = 1000;

describe('stalled connections', () => {
  let h: Harness;
  let key = '';
  before(async () => {
    h = await startHarness({ server: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
    key = (await h.newAccount(100)).test;
  });
  after(async () => h?.close());

  test('three hundred stalled connections do not starve other clients, and all of them are ended by the server', async () => {
    // From one address: past its cap (PRESEND_MAX_CONNECTIONS_PER_CLIENT, 256) they are answered 503 at once.
    const stalled = Array.from({ length: 300 }, () => slowClient(h.url, key, null));
    await Promise.all(stalled.map((c) => once(c.socket, 'connect')));
    // Other clients, from other addresses.
    const others = await Promise.all(
      Array.from({ length: 20 }, (_, i) => rawRequest(h.url, 'GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { 'x-api-key': key }, undefined, `127.0.0.${2 + (i % 5)}`)),
    );
    for (const r of others) assert.equal(r.status, 404);
    const answers = await Promise.all(stalled.map((c) => c.answer));
    assert.equal(answers.filter((a) => a.endedByServer).length, 300);
  });
});

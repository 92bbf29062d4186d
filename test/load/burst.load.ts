/**
 * A burst from many connections against one key's token bucket (docs/design.md §4: 20/s, burst 40),
 * a bounded-load test run by `npm run test:load`: at most burst + refill get through, the rest
 * are 429 with Retry-After, and the key's neighbour is not starved. On SQLite and on PostgreSQL
 * (a shared bucket row is where the race lives).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sameRateLimits, startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { describeOnEveryBackend } from '../backends.js';
import { assertSpecAnswer, rawRequest } from '../adversarial/raw-http.js';

const PER_SECOND = 20;
const BURST = 40;

describeOnEveryBackend('a burst of concurrent connections on one key', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      backend,
      // The GET routes draw from the reads bucket: the same limits here, so they meet them too.
      env: sameRateLimits(PER_SECOND, BURST),
    });
  });
  after(async () => h?.close());

  test('200 concurrent requests on 200 connections: at most burst + refill get through, the rest are 429 with Retry-After ≥ 1', async () => {
    const a = await h.newAccount(0);
    const path = '/v1/requests/00000000-0000-4000-8000-000000000000';
    const t0 = Date.now();
    const answers = await Promise.all(Array.from({ length: 200 }, () => rawRequest(h.url, 'GET', path, { 'x-api-key': a.test })));
    const elapsedS = (Date.now() - t0) / 1000;
    for (const answer of answers) assertSpecAnswer('status', answer, 'burst');
    const allowed = answers.filter((r) => r.status === 404).length;
    const limited = answers.filter((r) => r.status === 429);
    assert.equal(allowed + limited.length, 200, `only 404 and 429 expected: ${answers.map((r) => r.status).join(',')}`);
    assert.ok(allowed >= BURST, `a full bucket lets the burst through: ${allowed}`);
    assert.ok(allowed <= BURST + Math.ceil(PER_SECOND * elapsedS) + 1, `${allowed} allowed in ${elapsedS.toFixed(2)} s`);
    for (const r of limited) {
      assert.ok(Number(r.headers['retry-after']) >= 1);
      assert.equal(r.headers['ratelimit-limit'], String(BURST));
      assert.equal(r.headers['ratelimit-remaining'], '0');
    }
    // The bucket is per key: the same account's other key is not starved by the burst.
    const other = await rawRequest(h.url, 'GET', path, { 'x-api-key': a.live });
    assert.equal(other.status, 404);
  });
});

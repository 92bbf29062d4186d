import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import autocannon from 'autocannon';
import { sameRateLimits, startHarness, newIdem, waitFinal } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertSpecAnswer, rawRequest } from '../adversarial/raw-http.js';
import type { RawAnswer } from '../adversarial/raw-http.js';

/**
 * A bounded load run on loopback (5 s, stops by itself) at twice one key's rate limit: the
 * service answers everything, in-limit traffic is served without errors, the rest is 429 with
 * Retry-After, and what gets through is what the token bucket allows.
 */
const PER_SECOND = 50;
const BURST = 40;
const DURATION_S = 5;

describe('load at twice the rate limit', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      // The GET routes draw from the reads bucket: the same limits here, so they meet them too.
      env: sameRateLimits(PER_SECOND, BURST),
    });
  });
  after(async () => h?.close());

  test(`${2 * PER_SECOND} requests/s for ${DURATION_S} s: about rate × duration + burst are served, the rest are 429 with Retry-After`, async () => {
    const a = await h.newAccount(0);
    const created = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: ['deliverable@example.com', 'role@example.com', 'full@example.com'] } });
    assert.equal(created.status, 202);
    const id: string = created.body.request.id;
    await waitFinal(h, a.test, id);
    // The polling above spent tokens: wait for a full bucket before the run.
    await new Promise((resolve) => setTimeout(resolve, Math.ceil((BURST / PER_SECOND) * 1000) + 100));

    // Probes inside the run see the 429s themselves (autocannon reports only status codes).
    const probes: RawAnswer[] = [];
    let running = true;
    const probing = (async () => {
      while (running) {
        probes.push(await rawRequest(h.url, 'GET', `/v1/requests/${id}`, { 'x-api-key': a.test }));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const t0 = Date.now();
    const result = await autocannon({
      url: h.url,
      connections: 20,
      duration: DURATION_S,
      overallRate: 2 * PER_SECOND,
      headers: { 'x-api-key': a.test },
      requests: [
        { method: 'GET', path: `/v1/requests/${id}` },
        { method: 'GET', path: `/v1/requests/${id}/results?limit=2` },
      ],
    });
    const elapsedS = (Date.now() - t0) / 1000;
    running = false;
    await probing;

    for (const probe of probes) assertSpecAnswer('status', probe, 'probe during the load');
    const codes: Record<string, number> = Object.fromEntries(Object.entries(result.statusCodeStats as Record<string, { count?: number }>).map(([code, s]) => [code, s.count ?? 0]));
    const served = (codes['200'] ?? 0) + probes.filter((p) => p.status === 200).length;
    const limited = (codes['429'] ?? 0) + probes.filter((p) => p.status === 429).length;
    const summary = `${JSON.stringify(codes)}, probes ${probes.map((p) => p.status).join(',')}, ${elapsedS.toFixed(2)} s`;
    assert.equal(result.errors, 0, `connection errors: ${summary}`);
    assert.equal(result.timeouts, 0, `timeouts: ${summary}`);
    assert.equal(result['5xx'], 0, summary);
    assert.deepEqual(Object.keys(codes).sort(), ['200', '429'], summary);
    assert.ok(limited > 0, `the overload met 429s: ${summary}`);
    // autocannon sees status codes only: the bucket is empty as the run ends, so a few quick
    // requests meet a 429 whose headers can be read (assertSpecAnswer checks Retry-After ≥ 1).
    let refused: RawAnswer | undefined;
    for (let i = 0; i < 2 * BURST && !refused; i += 1) {
      const answer = await rawRequest(h.url, 'GET', `/v1/requests/${id}`, { 'x-api-key': a.test });
      assertSpecAnswer('status', answer, 'after the load');
      if (answer.status === 429) refused = answer;
    }
    assert.ok(refused, 'no 429 right after the overload');
    // Token bucket: at most burst + rate × time. At least well over half of it: the offered load
    // is twice the rate, but a busy machine sends it in clumps, and tokens that arrive while the
    // bucket is full are lost by design.
    const allowance = BURST + PER_SECOND * elapsedS;
    assert.ok(served <= allowance + 2, `${served} served, allowance ${allowance.toFixed(0)}: ${summary}`);
    assert.ok(served >= 0.6 * (BURST + PER_SECOND * DURATION_S), `${served} served, expected about ${BURST + PER_SECOND * DURATION_S}: ${summary}`);
  });
});

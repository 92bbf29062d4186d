/**
 * Issue 21, defect 7: `POST /v1/verify` answered 500 internal_error (a status the spec does not
 * list for the route) when the node running the check stalled past the check's lease and another
 * node, sweeping for abandoned checks, failed it. The stall is an engine that does not answer
 * until the test lets it; the other node is the sweep every serving process runs
 * (`claimAbandoned`), with a clock a lease and more ahead, as a node would see it once the
 * stalled node's renewals stopped. On both stores.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandboxEngine } from '../../src/core/index.js';
import type { Engine } from '../../src/core/index.js';
import { newIdem } from '../api/harness.js';
import { BACKENDS, harnessOn } from './backends.js';
import { assertSpecAnswer, rawRequest } from './raw-http.js';

const LEASE_MS = 2_000;

/** The sandbox's verdicts, each held back until `thaw`; `entered` resolves when a check reaches it. */
function stallingEngine(): Engine & { entered: Promise<void>; thaw(): void } {
  const sandbox = createSandboxEngine();
  let thaw = (): void => undefined;
  const thawed = new Promise<void>((resolve) => (thaw = resolve));
  let enter = (): void => undefined;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  return {
    entered,
    thaw: () => thaw(),
    async verify(address, options) {
      enter();
      await thawed;
      return sandbox.verify(address, options);
    },
    verifyMany: (addresses, onResult, options) => sandbox.verifyMany(addresses, onResult, options),
    close: () => sandbox.close(),
  };
}

for (const backend of BACKENDS) describe(`abuse: a check whose node stalls past its lease (${backend.name})`, { timeout: 120_000 }, () => {
  const stalling = stallingEngine();
  const on = harnessOn(backend, (env) => ({ env: { PRESEND_WORKER_LEASE_MS: String(LEASE_MS), ...env }, engines: { live: stalling, sandbox: createSandboxEngine() } }));

  test('another node fails it: the caller gets 503 service_unavailable, a status the route lists, and nothing is billed', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const { h } = on;
    const a = await h.newAccount(5);
    const answer = rawRequest(h.url, 'POST', '/v1/verify', { 'x-api-key': a.live, 'idempotency-key': newIdem(), 'content-type': 'application/json' }, JSON.stringify({ email: 'deliverable@stalled.example', timeoutMs: 60_000 }));
    await stalling.entered;
    // Another node's sweep, a lease and more after the stalled node last renewed.
    const later = new Date(Date.now() + 5 * LEASE_MS);
    await h.backend.verifications.claimAbandoned({ now: later, leaseExpiresAt: new Date(later.getTime() + LEASE_MS), limit: 100 });
    stalling.thaw();
    const r = await answer;
    assertSpecAnswer('verify', r, 'lease lost');
    assert.equal(r.status, 503, r.text);
    assert.equal(JSON.parse(r.text).error.code, 'service_unavailable');
    const balance = await h.backend.ledger.getBalance(a.accountId);
    assert.deepEqual({ held: balance.held, debited: balance.debited, available: balance.available }, { held: 0, debited: 0, available: 5 });
  });
});

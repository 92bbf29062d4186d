/**
 * Issue 21, defect 7: `POST /v1/verify` answered 500 internal_error (a status the spec does not
 * list for the route) when the node running the check stalled past the check's lease and another
 * node, sweeping for abandoned checks, failed it. The stall is an engine that does not answer
 * until the test lets it; the other node is the sweep every serving process runs
 * (the lease keeper's takeover of lapsed checks, `leases.takeLapsed`), with a clock a lease and more ahead, as a node would see it once the
 * stalled node's renewals stopped. On both stores.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandboxEngine } from '../../src/core/index.js';
import type { Engine } from '../../src/core/index.js';
import { newIdem } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { toStoredResult } from '../../src/store/stored-result.js';
import { BACKENDS } from '../backends.js';
import { harnessOn } from '../api/harness.js';
import { assertSpecAnswer, rawRequest } from './raw-http.js';

const LEASE_MS = 2_000;

/** The sandbox's verdicts, held back while stalled: `stall()` holds the next checks until its `thaw`, and says when one reaches it. */
function stallingEngine(): Engine & { stall(): { entered: Promise<void>; thaw(): void } } {
  const sandbox = createSandboxEngine();
  let held: { enter(): void; thawed: Promise<void> } | null = null;
  return {
    stall() {
      let thaw = (): void => undefined;
      const thawed = new Promise<void>((resolve) => (thaw = resolve));
      let enter = (): void => undefined;
      const entered = new Promise<void>((resolve) => (enter = resolve));
      held = { enter, thawed };
      return { entered, thaw };
    },
    async verify(address, options) {
      if (held) {
        held.enter();
        await held.thawed;
      }
      return sandbox.verify(address, options);
    },
    verifyMany: (addresses, onResult, options) => sandbox.verifyMany(addresses, onResult, options),
    close: () => sandbox.close(),
  };
}

/** Another node's sweep for abandoned checks, a lease and more after the stalled node last renewed. */
function sweepLater(h: Harness) {
  const later = new Date(Date.now() + 5 * LEASE_MS);
  return h.backend.leases.takeLapsed('check', { owner: 'other-node#1', now: later, until: new Date(later.getTime() + LEASE_MS), limit: 100 });
}

for (const backend of BACKENDS) describe(`abuse: a check whose node stalls past its lease (${backend.name})`, { timeout: 120_000 }, () => {
  const stalling = stallingEngine();
  const on = harnessOn(backend, { env: { PRESEND_WORKER_LEASE_MS: String(LEASE_MS) }, engines: { live: stalling, sandbox: createSandboxEngine() } });

  test('another node fails it: the caller gets 503 service_unavailable, a status the route lists, and nothing is billed', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const { h } = on;
    const a = await h.newAccount(5);
    const stall = stalling.stall();
    const answer = rawRequest(h.url, 'POST', '/v1/verify', { 'x-api-key': a.live, 'idempotency-key': newIdem(), 'content-type': 'application/json' }, JSON.stringify({ email: 'deliverable@stalled.example', timeoutMs: 60_000 }));
    await stall.entered;
    // The caller was not told 202, so the sweep fails the check and releases its credit.
    assert.deepEqual(await sweepLater(h), []);
    stall.thaw();
    const r = await answer;
    assertSpecAnswer('verify', r, 'lease lost');
    assert.equal(r.status, 503, r.text);
    assert.equal(JSON.parse(r.text).error.code, 'service_unavailable');
    const balance = await h.backend.ledger.getBalance(a.accountId);
    assert.deepEqual({ held: balance.held, debited: balance.debited, available: balance.available }, { held: 0, debited: 0, available: 5 });
  });
  test('once the caller was told 202, another node takes the check over and finishes it: a replay on the stalled node answers that result, billed once', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const { h } = on;
    const a = await h.newAccount(5);
    const stall = stalling.stall();
    const idem = newIdem();
    const body = JSON.stringify({ email: 'undeliverable@taken-over.example', timeoutMs: 1 });
    const headers = { 'x-api-key': a.live, 'idempotency-key': idem, 'content-type': 'application/json' };
    const pending = await rawRequest(h.url, 'POST', '/v1/verify', headers, body);
    assert.equal(pending.status, 202, pending.text);
    await stall.entered;
    const [taken] = await sweepLater(h);
    assert.ok(taken, 'a check its caller was told goes on is resumed, not failed');
    // The other node's run of it, with its own verdict (the domain turned catch-all meanwhile):
    // what the stalled node's engine says once it wakes must not replace it.
    const theirs = await createSandboxEngine().verify('catchall@taken-over.example');
    await h.backend.verifications.complete({ verificationId: taken.id, result: toStoredResult(theirs), now: new Date() });
    stall.thaw();
    // Replays (the same body) until the stalled node's run has ended: 202 while it runs, then the stored result.
    let answer = await rawRequest(h.url, 'POST', '/v1/verify', headers, body);
    for (let asked = 1; answer.status === 202 && asked < 600; asked++) {
      assertSpecAnswer('verify', answer, 'lease lost, taken over');
      await new Promise((turn) => setImmediate(turn));
      answer = await rawRequest(h.url, 'POST', '/v1/verify', headers, body);
    }
    assertSpecAnswer('verify', answer, 'lease lost, taken over');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(JSON.parse(answer.text).presend.verdict, theirs.envelope.verdict);
    const balance = await h.backend.ledger.getBalance(a.accountId);
    assert.deepEqual({ held: balance.held, debited: balance.debited }, { held: 0, debited: 1 });
  });
});

/**
 * Idempotency-Key scope and size (issue 12, findings 3 and 4): the key's mode belongs to the
 * scope (a sandbox answer is never replayed to a live key of the same account), and a key
 * longer than 255 characters is refused before anything is stored.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { startHarness, newIdem, waitFinal } from './harness.js';
import type { Harness } from './harness.js';
import { isError } from './schema-check.js';

describeOnEveryBackend('Idempotency-Key scope and length', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend });
  });
  after(async () => h.close());

  test('POST /v1/verify: the same key and body from a sandbox then a live key runs a live check', async () => {
    const a = await h.newAccount(5);
    const idem = newIdem();
    const body = { email: 'deliverable@example.com' };
    const sandbox = await h.call('POST', '/v1/verify', { key: a.test, idem, body });
    assert.equal(sandbox.status, 200);
    assert.notEqual(sandbox.body.presend.billing.disposition, 'debited', 'a sandbox check is free');
    const live = await h.call('POST', '/v1/verify', { key: a.live, idem, body });
    assert.equal(live.status, 200, 'a fresh live check, not a replay of the sandbox one');
    assert.deepEqual(live.body.presend.billing, { disposition: 'debited', credits: 1 });
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 4);
    // Each mode still replays its own answer. (The tests' live engine is the sandbox engine too: the billing tells them apart.)
    const liveAgain = await h.call('POST', '/v1/verify', { key: a.live, idem, body });
    assert.equal(liveAgain.body.engine.verifiedAt, live.body.engine.verifiedAt);
    const sandboxAgain = await h.call('POST', '/v1/verify', { key: a.test, idem, body });
    assert.equal(sandboxAgain.body.engine.verifiedAt, sandbox.body.engine.verifiedAt);
    assert.notEqual(sandboxAgain.body.presend.billing.disposition, 'debited');
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 4);
  });

  test('POST /v1/requests: the same key and body from a sandbox then a live key creates a live batch', async () => {
    const a = await h.newAccount(5);
    const idem = newIdem();
    const body = { emails: ['deliverable@example.com', 'deliverable@example.org'] };
    const sandbox = await h.call('POST', '/v1/requests', { key: a.test, idem, body });
    assert.equal(sandbox.status, 202);
    const live = await h.call('POST', '/v1/requests', { key: a.live, idem, body });
    assert.equal(live.status, 202, 'a new live batch, not the sandbox one replayed');
    assert.notEqual(live.body.request.id, sandbox.body.request.id);
    await waitFinal(h, a.live, live.body.request.id);
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 3);
    const replay = await h.call('POST', '/v1/requests', { key: a.live, idem, body });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.request.id, live.body.request.id);
  });

  for (const [route, body] of [
    ['/v1/verify', { email: 'deliverable@example.com' }],
    ['/v1/requests', { emails: ['deliverable@example.com'] }],
  ] as const) {
    test(`POST ${route}: an Idempotency-Key of 255 characters is taken, one of 256 is 400 invalid_request`, async () => {
      const a = await h.newAccount(5);
      const longest = `${newIdem()}-`.padEnd(255, 'k');
      const ok = await h.call('POST', route, { key: a.test, idem: longest, body });
      assert.ok(ok.status === 200 || ok.status === 202, `status ${ok.status}`);
      const tooLong = await h.call('POST', route, { key: a.test, idem: 'k'.repeat(256), body });
      isError(tooLong, 400, 'invalid_request');
      assert.match(tooLong.body.error.message, /Idempotency-Key.*255/);
      isError(await h.call('POST', route, { key: a.test, idem: 'k'.repeat(15_000), body }), 400, 'invalid_request');
    });
  }
});

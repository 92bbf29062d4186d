/**
 * Issue 21, defect 8: batch creations racing past the outstanding-work cap
 * (PRESEND_ACCOUNT_MAX_OUTSTANDING). The cap was checked by a SUM no lock guarded, so under READ
 * COMMITTED each of twenty concurrent creations saw the others' work uncommitted: 14 batches of
 * 1,000 were accepted against a cap of 10,000. No worker runs here, so no accepted batch makes
 * room for another while they race: exactly ten fit.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newIdem } from '../api/harness.js';
import { BACKENDS } from '../backends.js';
import { countRequests, harnessOn } from '../api/harness.js';
import { assertSpecAnswer, rawRequest } from './raw-http.js';

const CAP = 10_000;
const BATCH = 1_000;
const RACERS = 20;

for (const backend of BACKENDS) describe(`abuse: batch creations racing past the outstanding-work cap (${backend.name})`, { timeout: 170_000 }, () => {
  const on = harnessOn(backend, { env: { PRESEND_ACCOUNT_MAX_OUTSTANDING: String(CAP) }, server: { worker: false } });

  test('twenty 1,000-address batches at once against a cap of 10,000: ten accepted, the rest 429, held credits exact', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const { h } = on;
    // Credits for all twenty: the cap, not the balance, must be what refuses.
    const a = await h.newAccount(RACERS * BATCH);
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, n) => {
        const emails = Array.from({ length: BATCH }, (_, i) => `deliverable+${n}x${i}@race${n}.example`);
        return rawRequest(h.url, 'POST', '/v1/requests', { 'x-api-key': a.live, 'idempotency-key': newIdem(), 'content-type': 'application/json' }, JSON.stringify({ emails }));
      }),
    );
    for (const answer of answers) assertSpecAnswer('createBatch', answer, 'race');
    const accepted = answers.filter((r) => r.status === 202);
    const refused = answers.filter((r) => r.status === 429);
    assert.equal(accepted.length + refused.length, RACERS, answers.map((r) => r.status).join(','));
    for (const r of refused) assert.equal(JSON.parse(r.text).error.code, 'too_much_outstanding_work');
    assert.equal(accepted.length, CAP / BATCH, `${accepted.length} batches of ${BATCH} accepted against a cap of ${CAP}`);
    assert.equal(await countRequests(h, a.accountId), CAP / BATCH);
    const balance = await h.backend.ledger.getBalance(a.accountId);
    assert.deepEqual({ held: balance.held, debited: balance.debited }, { held: CAP, debited: 0 });
  });
});

/**
 * The batch page in a real browser while addresses wait for a healthy egress route (issue 22):
 * every route paused for their provider, they wait recheck_scheduled, and the owner is told so —
 * without a word about the routes, which are the operator's.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../api/harness.js';
import { assertAccessible, noBrowser, openBrowser, type OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn, type TestOwner } from './owners.js';
import { createOwnerKey } from '../../src/service/keys/managed-keys.js';
import { whenText } from '../../src/dashboard/layout.js';

let h: Harness;
let browser: OwnerBrowser;
let owner: TestOwner;

before(async () => {
  if (noBrowser) return;
  // No worker: the test puts the items where a worker would (waiting for a route, greylisted).
  h = await startHarness({ server: { worker: false } });
  owner = await newOwner(h.backend, h.url, 50);
  browser = await openBrowser();
  await setPasswordAndSignIn(browser.page, owner);
});
after(async () => {
  await browser?.close();
  await h?.close();
});

test('a batch whose addresses wait for a healthy route says so, how many and when they are retried', { skip: noBrowser }, async () => {
  const { page } = browser;
  const { key } = await createOwnerKey(h.backend.keyManagement, { accountId: owner.accountId, mode: 'test', label: 'Waits', actor: { name: owner.email }, now: new Date() });
  const emails = ['a@contoso.example', 'b@contoso.example', 'c@plain.example'];
  const created = await h.call('POST', '/v1/requests', { key, idem: `route-wait-${Date.now()}`, body: { emails } });
  assert.equal(created.status, 202);
  const now = new Date();
  const claimed = await h.backend.work.claim({ owner: 'w1', affinity: 'w1', now, leaseMs: 60_000, limit: 10, affinityGraceMs: 60_000 });
  assert.equal(claimed.length, 3);
  const retryAt = new Date(now.getTime() + 40 * 60_000);
  for (const item of claimed) {
    const refused = item.email.endsWith('@contoso.example');
    const recheckAt = refused ? retryAt : new Date(now.getTime() + 300_000);
    await h.backend.batches.recordItemResult({ kind: 'recheck', itemId: item.itemId, affinity: 'w1', recheckAt, now, waitsForRoute: refused });
  }
  await page.goto(`${h.url}/dashboard/batches/${created.body.request.id}`);
  const expected = `0 % — 0 of 3 addresses final — waiting: the mail servers of 2 addresses refuse our probes for now; retrying at ${whenText(retryAt.toISOString())}; 1 waiting for a greylisting recheck`;
  await page.getByText(expected).waitFor({ timeout: 20_000 });
  assert.ok(!/route|egress/i.test(await page.locator('main').innerText()), 'nothing of the operator\'s routes is shown');
  await assertAccessible(page, 'batch page, addresses waiting for a route');
  // The status the API answers is unchanged by it: the counters as the design names them.
  const status = await h.call('GET', `/v1/requests/${created.body.request.id}`, { key });
  assert.equal(status.body.counters.rechecking, 3);
  assert.deepEqual(browser.problems, []);
});

/**
 * The webhooks pages in a real browser, on SQLite and on PostgreSQL, checked with axe at each
 * step: an owner adds an endpoint and sees its signing secret once, a test event and a batch's
 * event arrive signed (verified by the `standardwebhooks` package), the delivery log shows a
 * failure after "Send again", a rotation shows a new secret, a metadata address is refused, and
 * the endpoint is removed after a confirmation.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { newIdem, startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { assertAccessible, noBrowser, openBrowser } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn } from './owners.js';
import type { TestOwner } from './owners.js';
import { startReceiver } from '../webhooks/receiver.js';
import type { Receiver } from '../webhooks/receiver.js';

describeOnEveryBackend('the webhooks pages', (backend) => {
  let h: Harness;
  let browser: OwnerBrowser;
  let owner: TestOwner;
  let receiver: Receiver;

  before(async () => {
    if (noBrowser) return;
    h = await startHarness({ backend, env: { PRESEND_ALLOW_PRIVATE_WEBHOOKS: 'loopback', PRESEND_WEBHOOK_POLL_MS: '20' } });
    owner = await newOwner(h.backend, h.url);
    receiver = await startReceiver();
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
    await receiver?.close();
  });

  test('an owner adds an endpoint, keeps its secret, and reads the delivery log', { skip: noBrowser }, async () => {
    const { page } = browser;
    await setPasswordAndSignIn(page, owner);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
    await assertAccessible(page, 'webhooks page');

    // A metadata address is refused on the spot.
    await page.getByLabel('Endpoint URL').fill('http://169.254.169.254/latest/meta-data/');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    assert.match(await page.getByRole('alert').innerText(), /not added: .*PRESEND_ALLOW_PRIVATE_WEBHOOKS/);
    assert.equal((await h.backend.webhooks.listEndpoints(owner.accountId)).length, 0);

    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/dash`);
    await page.getByLabel('Description').fill('CRM sync');
    await page.getByLabel(/verification\.completed/).uncheck();
    await page.getByLabel(/verification\.failed/).uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    await assertAccessible(page, 'endpoint page with its new secret');
    const [endpoint] = await h.backend.webhooks.listEndpoints(owner.accountId);
    assert.deepEqual(endpoint?.events, ['batch.completed', 'batch.failed']);

    await page.getByRole('button', { name: 'Send a test event' }).click();
    const test = await receiver.waitFor((r) => r.path === '/dash' && r.payload.type === 'webhook.test');
    assert.deepEqual(receiver.verifiedBy(test, [secret]), [secret]);
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');

    // A sandbox batch of the account is announced to the endpoint.
    const key = generateApiKey('test');
    await h.backend.keyManagement.createKey({ accountId: owner.accountId, hash: key.hash, displayPrefix: key.displayPrefix, mode: 'test', label: null, actor: { name: 'test' }, now: new Date() });
    const created = await h.call('POST', '/v1/requests', { key: key.key, idem: newIdem(), body: { emails: ['deliverable@example.com', 'catchall@example.com'] } });
    const batch = await receiver.waitFor((r) => r.path === '/dash' && r.payload.data.requestId === created.body.request.id);
    assert.deepEqual(receiver.verifiedBy(batch, [secret]), [secret]);

    const log = page.getByRole('table', { name: /Deliveries to this endpoint/ });
    await waitForText(page, log, /batch\.completed[\s\S]*delivered[\s\S]*webhook\.test[\s\S]*delivered/);
    await assertAccessible(page, 'delivery log');

    // Send the test event again while the receiver fails: the log shows the failed attempt and its answer.
    receiver.answer = (r) => (r.path === '/dash' ? 500 : 200);
    await page.getByRole('button', { name: new RegExp(`Send again: webhook\\.test ${test.id}`) }).click();
    await receiver.waitFor((r) => r !== test && r.id === test.id);
    const testRow = log.getByRole('row', { name: new RegExp(test.id) });
    await waitForText(page, testRow, /retrying[\s\S]*HTTP 500/);
    receiver.answer = 200;
    await assertAccessible(page, 'delivery log with a failed attempt');

    await page.getByRole('button', { name: 'Rotate signing secret' }).click();
    const rotated = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    assert.notEqual(rotated, secret);
    assert.match(await page.getByRole('main').innerText(), /previous secret keeps signing beside it for 24 hours/);
    await page.reload();
    assert.match(await page.getByRole('main').innerText(), /Previous secret\s+still signs until/);

    await page.getByRole('link', { name: 'Remove endpoint' }).click();
    await assertAccessible(page, 'remove confirmation');
    await page.getByRole('button', { name: 'Remove endpoint' }).click();
    assert.match(await page.getByRole('status').first().innerText(), /is removed/);
    assert.equal((await h.backend.webhooks.listEndpoints(owner.accountId)).length, 0);
    assert.deepEqual(browser.problems, []);
  });
});

/** Reloads until the element's text matches (the log is read from the store at each load). */
async function waitForText(page: OwnerBrowser['page'], locator: ReturnType<OwnerBrowser['page']['getByRole']>, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await locator.count()) > 0 && pattern.test(await locator.innerText())) return;
    if (Date.now() > deadline) assert.fail(`"${pattern}" not shown within ${timeoutMs} ms`);
    await page.reload();
  }
}

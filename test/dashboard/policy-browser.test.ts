/**
 * The Policy page in a real browser, on SQLite and on PostgreSQL, checked with axe: an owner
 * changes what ROLE means and sets a confidence threshold, the history names them, "Try an
 * address" then shows the new decision with the policy's reason, and a choice the page does not
 * offer (a forged form) is refused with nothing written.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { assertAccessible, chooseOption, noBrowser, openBrowser, screenshot } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn } from './owners.js';
import type { TestOwner } from './owners.js';

describeOnEveryBackend('the Policy page', (backend) => {
  let h: Harness;
  let browser: OwnerBrowser;
  let owner: TestOwner;

  before(async () => {
    if (noBrowser) return;
    h = await startHarness({ backend });
    owner = await newOwner(h.backend, h.url);
    const key = generateApiKey('test');
    await h.backend.keyManagement.createKey({ accountId: owner.accountId, hash: key.hash, displayPrefix: key.displayPrefix, mode: 'test', label: null, actor: { name: 'test' }, now: new Date() });
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  test('an owner changes the policy, sees its history, and new checks follow it', { skip: noBrowser }, async () => {
    const { page } = browser;
    await setPasswordAndSignIn(page, owner);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Policy' }).click();
    await assertAccessible(page, 'policy page');
    assert.match(await page.getByRole('main').innerText(), /Never changed: this account follows the default table/);
    const unknownOptions = await page.getByLabel('UNKNOWN', { exact: true }).locator('option').allInnerTexts();
    assert.deepEqual(unknownOptions, ['do not decide (default)', 'recheck later', 'manual review'], 'a non-verdict is never offered send or suppress');

    await chooseOption(page.getByLabel('ROLE', { exact: true }), /^send$/);
    await page.getByLabel(/Confidence threshold/).fill('0.7');
    await page.getByRole('button', { name: 'Save policy' }).click();
    assert.match(await page.getByRole('status').first().innerText(), /Policy saved as version 1/);
    const history = page.getByRole('table', { name: /Versions of this account's policy/ });
    const row = await history.getByRole('row').nth(1).innerText();
    assert.match(row, new RegExp(`1\\s[\\s\\S]*${owner.email.replace(/[.]/g, '\\.')}[\\s\\S]*ROLE → send; confidence below 0\\.7 → do not decide`));
    await assertAccessible(page, 'policy page after a change');
    await screenshot(page, 'policy');
    const stored = await h.backend.policies.current(owner.accountId);
    assert.deepEqual([stored.version, stored.rules, stored.changedBy], [1, { decisions: { ROLE: 'send' }, minConfidence: 0.7 }, owner.email]);

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Try an address' }).click();
    await page.getByLabel('Email address').fill('role@example.com');
    await page.getByRole('button', { name: 'Verify' }).click();
    const result = page.getByRole('region', { name: 'Result for role@example.com' });
    await result.waitFor();
    const text = await result.innerText();
    assert.match(text, /Decision\s+Send\b/);
    assert.match(text, /policy_rule: This account's decision policy set the recommended action/);

    // A choice the page does not offer, sent anyway: refused, nothing written.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Policy' }).click();
    // (A script in the page: the test's own types know no DOM.)
    await page.evaluate(`{
      const select = document.getElementById('decision-UNKNOWN');
      select.add(new Option('send', 'send', true, true));
    }`);
    await page.getByRole('button', { name: 'Save policy' }).click();
    assert.match(await page.getByRole('alert').innerText(), /Not saved: UNKNOWN cannot be "send"/);
    assert.equal((await h.backend.policies.current(owner.accountId)).version, 1);

    // Signed in, but without the form's token: refused like every other form, nothing written.
    const forged = await page.request.post(`${h.url}/dashboard/policy`, { form: { version: '1', 'decision.ROLE': 'suppress' }, maxRedirects: 0 });
    assert.equal(forged.status(), 403);
    assert.equal((await h.backend.policies.current(owner.accountId)).version, 1);
  });
});

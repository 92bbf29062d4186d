/**
 * The feedback pages in a real browser, checked with axe at each step: an owner makes a Postmark
 * webhook URL (shown once), a provider posts a bounce to it, the source shows its count; a key
 * that is not a SendGrid public key is refused; the window is saved; the address's history shows
 * the bounce, and "Forget this address" removes it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertAccessible, chooseOption, noBrowser, openBrowser } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn } from './owners.js';
import type { TestOwner } from './owners.js';

describe('the feedback pages', () => {
  let h: Harness;
  let browser: OwnerBrowser;
  let owner: TestOwner;

  before(async () => {
    if (noBrowser) return;
    h = await startHarness();
    owner = await newOwner(h.backend, h.url);
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  test('an owner makes a webhook URL, sees the events it brings, reads an address history and forgets the address', { skip: noBrowser }, async () => {
    const { page } = browser;
    await setPasswordAndSignIn(page, owner);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Feedback' }).click();
    await assertAccessible(page, 'feedback page');
    assert.match(await page.getByRole('main').innerText(), /No feedback yet/);

    await chooseOption(page.getByLabel('Provider').first(), /^Postmark$/);
    await page.getByRole('button', { name: 'Create webhook URL' }).click();
    const url = await page.getByLabel('Webhook URL', { exact: true }).inputValue();
    assert.match(url, /\/feedback\/postmark\/fb_[0-9A-Za-z]{40}$/);
    await assertAccessible(page, 'feedback page with a new webhook URL');

    const bounce = { RecordType: 'Bounce', Type: 'HardBounce', MessageID: 'b-1', Email: 'gone@example.com', BouncedAt: new Date().toISOString(), Details: 'smtp;550 5.1.1 unknown' };
    const posted = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(bounce) });
    assert.equal(posted.status, 200);
    await page.reload();
    assert.equal(await page.getByLabel('Webhook URL', { exact: true }).count(), 0, 'the URL is shown only once');
    const row = page.getByRole('row', { name: /Postmark/ });
    assert.match(await row.innerText(), /fb_\w{6}…\s+1\s+0\s+0/);

    await chooseOption(page.getByLabel('Provider').nth(1), /^SendGrid/);
    await page.getByLabel('Key').fill('not a key');
    await page.getByRole('button', { name: 'Save key' }).click();
    assert.match(await page.getByRole('alert').innerText(), /not saved: not a public key/);

    await page.getByLabel('Days a hard bounce (and a delivery) counts').fill('90');
    await page.getByRole('button', { name: 'Save window' }).click();
    assert.equal(await h.backend.feedback.windowDays(owner.accountId), 90);

    await page.getByLabel('Email address').fill('gone@example.com');
    await page.getByRole('button', { name: 'Show its history' }).click();
    await assertAccessible(page, 'address history');
    const main = await page.getByRole('main').innerText();
    assert.match(main, /Last hard bounce\s+\S+ \(HardBounce, Postmark\)/);
    assert.match(main, /Hard bounce\s+HardBounce\s+Postmark/);
    await page.getByRole('button', { name: 'Forget this address' }).click();
    assert.match(await page.getByRole('status').first().innerText(), /gone@example.com is forgotten/);
    assert.equal((await h.backend.feedback.address(owner.accountId, 'gone@example.com')).history, null);
  });
});

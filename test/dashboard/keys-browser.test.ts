/**
 * The dashboard in a real browser, part one: an owner chooses a password from the one-time
 * link, signs in, creates a sandbox key that is shown once (after a reload only its prefix),
 * uses it on POST /v1/verify, revokes it with a confirmation and sees the API answer 401.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertAccessible, noBrowser, openBrowser } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn } from './owners.js';
import type { TestOwner } from './owners.js';

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

test('an owner sets the password from the one-time link and signs in', { skip: noBrowser }, async () => {
  const { page } = browser;
  await page.goto(owner.link);
  await assertAccessible(page, 'set-password page');
  await setPasswordAndSignIn(page, owner);
  await assertAccessible(page, 'overview page');
  assert.match(await page.getByRole('main').innerText(), /Available credits\s+1,000/);
  // A new account has used nothing: a sentence says so, not an empty chart.
  assert.match(await page.getByRole('main').innerText(), /No credits used in the last 30 days\./);
  assert.equal(await page.getByRole('img', { name: /Credits used per day/ }).count(), 0);
  // The link works once.
  await page.goto(owner.link);
  assert.match(await page.getByRole('alert').innerText(), /used already or has expired/);
});

test('a new key is shown once, works on the API, shows only its prefix after a reload, and stops working once revoked', { skip: noBrowser }, async () => {
  const { page } = browser;
  await page.goto(`${h.url}/dashboard/keys`);
  await assertAccessible(page, 'keys page');
  await page.getByLabel('Label').fill('CRM sync');
  await page.getByLabel(/Sandbox/).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = await page.getByLabel('New API key').inputValue();
  assert.match(key, /^ps_test\.[0-9A-Za-z]{40}$/);
  await assertAccessible(page, 'keys page with a new key');

  const verified = await h.call('POST', '/v1/verify', { key, idem: `k-${Date.now()}`, body: { email: 'deliverable@example.com' } });
  assert.equal(verified.status, 200);
  assert.equal(verified.body.presend.verdict, 'DELIVERABLE');

  await page.reload();
  const text = await page.content();
  assert.ok(!text.includes(key), 'after a reload the key is gone from the page');
  assert.ok(!text.includes(key.slice(14)), 'not even its secret part');
  const row = page.getByRole('row', { name: /CRM sync/ });
  assert.match(await row.innerText(), new RegExp(`${key.slice(0, 14).replace('.', '\\.')}…`));
  assert.match(await row.innerText(), /sandbox/);

  await row.getByRole('link', { name: /Revoke/ }).click();
  await assertAccessible(page, 'revoke confirmation');
  await page.getByRole('button', { name: /Revoke key/ }).click();
  assert.match(await page.getByRole('status').first().innerText(), /revoked/);
  const refused = await h.call('POST', '/v1/verify', { key, idem: `k2-${Date.now()}`, body: { email: 'deliverable@example.com' } });
  assert.equal(refused.status, 401);
  const trail = await page.getByRole('table', { name: /Who created or revoked/ }).innerText();
  assert.match(trail, new RegExp(`${owner.email}\\s+revoked`));
  assert.match(trail, new RegExp(`${owner.email}\\s+created`));
  assert.deepEqual(browser.problems, []);
});

/**
 * The dashboard in a real browser, part two: a batch from a stored list on a sandbox key with
 * its cost shown first and live progress to 100 %, the usage ledger and its CSV export, trying
 * one address, throttled sign-in, sign out everywhere, and another account's owner getting 404
 * for this account's batch. axe-core checks every page.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertAccessible, chooseOption, noBrowser, openBrowser, screenshot } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn, signIn } from './owners.js';
import type { TestOwner } from './owners.js';
import { createOwnerKey } from '../../src/service/keys/managed-keys.js';

let h: Harness;
let browser: OwnerBrowser;
let owner: TestOwner;
let batchUrl = '';

before(async () => {
  if (noBrowser) return;
  // Sandbox rechecks a few seconds apart: long enough for the page to show one waiting.
  h = await startHarness({ env: { PRESEND_SANDBOX_RECHECK_DELAY_MS: '4000' } });
  owner = await newOwner(h.backend, h.url, 50);
  browser = await openBrowser();
  await setPasswordAndSignIn(browser.page, owner);
});
after(async () => {
  await browser?.close();
  await h?.close();
});

test('a sandbox batch from a list shows its cost before it starts, then its progress live up to 100 % and its verdicts', { skip: noBrowser }, async () => {
  const { page } = browser;
  const emails = [
    ...Array.from({ length: 60 }, (_, i) => `person${i}@example.com`),
    ...Array.from({ length: 20 }, (_, i) => `undeliverable+${i}@example.com`),
    'catchall@example.com',
    'person1@example.com',
    'not an address',
  ];
  await h.backend.lists.importList({ accountId: owner.accountId, name: 'leads', now: new Date(), entries: [emails] });
  await createOwnerKey(h.backend.keyManagement, { accountId: owner.accountId, mode: 'test', label: 'Batch tests', actor: { name: owner.email }, now: new Date() });
  await createOwnerKey(h.backend.keyManagement, { accountId: owner.accountId, mode: 'live', label: 'Production', actor: { name: owner.email }, now: new Date() });

  await page.goto(`${h.url}/dashboard/batches`);
  await assertAccessible(page, 'batches page');
  await screenshot(page, 'batches');
  await page.getByLabel('List', { exact: true }).selectOption({ label: 'leads (83 rows)' });
  await chooseOption(page.getByLabel('Run with key'), /Live key .*Production/);
  await page.getByRole('button', { name: 'See the cost', exact: true }).click();
  const table = await page.getByRole('table', { name: /What the batch will verify/ }).innerText();
  assert.match(table, /Unique addresses to verify\s+81/);
  // One credit per row at the start; those of the 2 duplicates and non-addresses come back as the list is written.
  assert.match(table, /Credits to be held\s+83/);
  assert.match(table, /Of which come back once the list is written \(duplicates, not addresses\)\s+2/);
  assert.match(await page.getByRole('alert').innerText(), /Not enough credits: this batch needs 83, 50 are available/);
  await assertAccessible(page, 'batch cost, short of credits');

  await chooseOption(page.getByLabel('Run with key'), /Sandbox key .*Batch tests/);
  await page.getByRole('button', { name: 'See the cost with this key' }).click();
  assert.match(await page.getByRole('table', { name: /What the batch will verify/ }).innerText(), /Credits to be held\s+0/);
  await assertAccessible(page, 'batch cost confirmation');
  await screenshot(page, 'batch-cost');
  await page.getByRole('button', { name: /Start batch/ }).click();
  await page.waitForURL(/\/dashboard\/batches\/[0-9a-f-]{36}$/);
  batchUrl = page.url();
  // The page follows the batch by itself (server-sent events) and shows the end state.
  await page.getByText('100 % — 82 of 82 addresses final').waitFor({ timeout: 60_000 });
  await page.getByText('completed', { exact: true }).waitFor();
  await assertAccessible(page, 'batch page');
  await screenshot(page, 'batch');
  const decisions = await page.getByRole('table', { name: 'Addresses by decision' }).innerText();
  assert.match(decisions, /Send\s+60/);
  assert.match(decisions, /Suppress: do not send\s+21/, '20 undeliverable and one that is not an address');
  assert.match(decisions, /Send with caution\s+1/);
  const verdicts = await page.getByRole('table', { name: 'Final addresses by verdict' }).innerText();
  assert.match(verdicts, /Deliverable\s+60/);
  assert.match(verdicts, /Undeliverable: no such mailbox\s+20/);
  assert.match(verdicts, /Catch-all domain\s+1/);
  const chart = page.getByRole('img', { name: /Verdicts of this batch/ });
  assert.ok(await chart.isVisible());
  // The chart takes the width it is given, and its labels keep their size on a narrow screen.
  const chartWidth = (await chart.boundingBox())?.width ?? 0;
  const mainWidth = (await page.getByRole('main').boundingBox())?.width ?? 1;
  assert.ok(chartWidth >= 0.9 * mainWidth, `the chart is ${chartWidth} px wide in a page of ${mainWidth} px`);
  const labelHeight = () => page.evaluate(`document.querySelector('figure.chart svg text').getBoundingClientRect().height`) as Promise<number>;
  const wide = await labelHeight();
  await page.setViewportSize({ width: 360, height: 900 });
  try {
    assert.equal(await labelHeight(), wide, 'a label is as tall on a phone as on a desktop');
    await assertAccessible(page, 'batch page on a narrow screen');
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
  assert.deepEqual(browser.problems, []);
});

test('while a greylisted address waits for its recheck, the batch page says so and when the next one is due', { skip: noBrowser }, async () => {
  const { page } = browser;
  const { key } = await createOwnerKey(h.backend.keyManagement, { accountId: owner.accountId, mode: 'test', label: 'Recheck', actor: { name: owner.email }, now: new Date() });
  const created = await h.call('POST', '/v1/requests', { key, idem: `recheck-${Date.now()}`, body: { emails: ['greylisted@example.com', 'deliverable@example.com'] } });
  assert.equal(created.status, 202);
  await page.goto(`${h.url}/dashboard/batches/${created.body.request.id}`);
  await page.getByText(/addresses final — 1 waiting for a greylisting recheck, the next in [0-4] s$/).waitFor({ timeout: 20_000 });
  // After the last recheck the address is TRANSIENT and the batch ends: no more waiting.
  await page.getByText('100 % — 2 of 2 addresses final').waitFor({ timeout: 60_000 });
});

test('the usage page lists the ledger and exports it as CSV', { skip: noBrowser }, async () => {
  const { page } = browser;
  await page.goto(`${h.url}/dashboard/usage`);
  await assertAccessible(page, 'usage page');
  await screenshot(page, 'usage');
  assert.match(await page.getByRole('table', { name: /Credits ledger/ }).innerText(), /Granted\s+50/);
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download the ledger (CSV)' }).click();
  const csv = await readFile((await (await download).path()) as string, 'utf8');
  const lines = csv.trim().split(/\r?\n/);
  assert.equal(lines[0], 'id,created_at,kind,credits,request_id,verification_id');
  assert.match(lines[1] ?? '', /^\d+,[^,]+,grant,50,,$/);
});

test('trying one address shows its envelope with every reason in words', { skip: noBrowser }, async () => {
  const { page } = browser;
  await page.goto(`${h.url}/dashboard/try`);
  await assertAccessible(page, 'try page');
  await page.getByLabel('Email address').fill('catchall@example.com');
  await chooseOption(page.getByLabel('Check with key'), /Sandbox key/);
  await page.getByRole('button', { name: 'Verify' }).click();
  const result = page.getByRole('region', { name: 'Result for catchall@example.com' });
  await result.waitFor();
  const text = await result.innerText();
  assert.match(text, /Decision\s+Send with caution/);
  // The service decides what an address is (internationalised ones included), not the browser.
  assert.match(text, /Verdict\s+Catch-all domain CATCH_ALL/);
  assert.match(text, /catch_all_domain: The domain accepts mail for any address/);
  assert.match(text, /sandbox: A sandbox key answered/);
  // No provider was looked up: the page does not claim the domain has no mail servers.
  assert.match(text, /Mail provider\s+not looked up \(a sandbox key checks nothing on the network\)/);
  await assertAccessible(page, 'try page with a result');
  await screenshot(page, 'try');

  await page.getByLabel('Email address').fill('two@@example.com');
  await page.getByRole('button', { name: 'Verify' }).click();
  assert.match(await page.getByRole('alert').innerText(), /not a valid address/);
});

test("another account's owner gets 404 for this account's batch, and signing in is throttled after repeated failures", { skip: noBrowser }, async () => {
  const other = await newOwner(h.backend, h.url);
  const second = await openBrowser();
  try {
    await setPasswordAndSignIn(second.page, other);
    const response = await second.page.goto(batchUrl);
    assert.equal(response?.status(), 404);
    assert.match(await second.page.getByRole('alert').innerText(), /nothing here/);
    const events = await second.page.goto(`${batchUrl}/events`);
    assert.equal(events?.status(), 404);
    await assertAccessible(second.page, 'not found page');

    await second.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await assertAccessible(second.page, 'sign-in page');
    for (let i = 0; i < 5; i++) {
      await second.page.getByLabel('Email').fill(other.email);
      await second.page.getByLabel('Password').fill('wrong password here');
      await second.page.getByRole('button', { name: 'Sign in' }).click();
      assert.match(await second.page.getByRole('alert').innerText(), /not right/);
    }
    await second.page.getByLabel('Email').fill(other.email);
    await second.page.getByLabel('Password').fill(other.password);
    await second.page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await second.page.getByRole('alert').innerText(), /Too many failed attempts/, 'even the right password waits out the window');
    // The way out names the owner who is locked out, not a placeholder address.
    assert.equal(await second.page.locator('code', { hasText: 'reset-password' }).innerText(), `presend users reset-password --email ${other.email}`);
    await assertAccessible(second.page, 'sign-in page, throttled');
    await screenshot(second.page, 'sign-in');
  } finally {
    await second.close();
  }
});

test('signing out everywhere ends the sessions of every browser', { skip: noBrowser }, async () => {
  const third = await openBrowser();
  try {
    await third.page.goto(`${h.url}/dashboard/sign-in`);
    await signIn(third.page, owner);
    await browser.page.goto(`${h.url}/dashboard`);
    await browser.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await browser.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await third.page.goto(`${h.url}/dashboard/keys`);
    await third.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.match(third.page.url(), /\/dashboard\/sign-in\?next=%2Fdashboard%2Fkeys$/);
  } finally {
    await third.close();
  }
});

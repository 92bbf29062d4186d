/**
 * The owner's whole round in a real browser (issue #14): sign in; create a key and see it once
 * (after a reload only its prefix); use it on POST /v1/verify; upload a CSV of 1,000 rows with
 * extra columns and a bad row, with progress; start a batch on the sandbox key after seeing its
 * cost; watch its progress reach 100 %; download the results and compare them row by row with
 * the upload; revoke the key and see the API answer 401; and another account's owner cannot
 * open the batch. axe-core checks every page; the screenshots of docs/dashboard.md come from
 * here and from the other browser tests.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { startHarness, waitFinal } from '../api/harness.js';
import { createOwnerKey } from '../../src/service/keys/managed-keys.js';
import type { Harness } from '../api/harness.js';
import { assertAccessible, chooseOption, noBrowser, openBrowser, screenshot } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn } from './owners.js';
import type { TestOwner } from './owners.js';
import { createSandboxEngine } from '../../src/core/index.js';
import { RESULT_COLUMNS } from '../../src/files/index.js';

const ROWS = 1000;
const BAD_LINE = 502; // the file's line of the row whose address is not one (header is line 1)
const KINDS = ['deliverable', 'undeliverable', 'catchall', 'role', 'disposable', 'unknown', 'full', 'someone'];

let h: Harness;
let browser: OwnerBrowser;
let owner: TestOwner;
let dir: string;
let csvPath: string;
let key = '';
let batchUrl = '';

/** 1,000 data rows: names, the address, a company with a comma, a note; row 501 (line 502) holds no address. */
function uploadRows(): string[][] {
  const rows: string[][] = [['First name', 'Last name', 'Email', 'Company', 'Notes']];
  for (let i = 1; i <= ROWS; i++) {
    const kind = KINDS[i % KINDS.length] as string;
    const email = i + 1 === BAD_LINE ? 'not-an-address.example.com' : i % 97 === 0 ? `${kind}@example.com` : `${kind}+${i}@example.com`;
    rows.push([`First${i}`, `Last ${i}`, email, `Company ${i % 7}, Inc.`, i % 10 === 0 ? 'prefers "phone"' : '']);
  }
  return rows;
}

function toCsv(rows: string[][]): string {
  return rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\r\n') + '\r\n';
}

before(async () => {
  if (noBrowser) return;
  h = await startHarness();
  owner = await newOwner(h.backend, h.url, 5000);
  browser = await openBrowser();
  dir = mkdtempSync(join(tmpdir(), 'presend-scenario-'));
  csvPath = join(dir, 'leads.csv');
  writeFileSync(csvPath, toCsv(uploadRows()));
});
after(async () => {
  await browser?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('sign in, and a sandbox key shown once that works on POST /v1/verify', { skip: noBrowser }, async () => {
  const { page } = browser;
  await page.goto(owner.link);
  await screenshot(page, 'set-password');
  await setPasswordAndSignIn(page, owner);
  await assertAccessible(page, 'overview');
  await page.goto(`${h.url}/dashboard/keys`);
  await page.getByLabel('Label').fill('Dashboard scenario');
  await page.getByLabel(/Sandbox/).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  key = await page.getByLabel('New API key').inputValue();
  await screenshot(page, 'keys-new', { mask: [page.getByLabel('New API key')] });
  const verified = await h.call('POST', '/v1/verify', { key, idem: `scenario-${Date.now()}`, body: { email: 'undeliverable@example.com' } });
  assert.equal(verified.status, 200);
  assert.equal(verified.body.presend.decision, 'suppress');
  await page.reload();
  assert.ok(!(await page.content()).includes(key));
  assert.ok(await page.getByRole('row', { name: /Dashboard scenario/ }).getByText(`${key.slice(0, 14)}…`).isVisible());
  await assertAccessible(page, 'keys');
  await screenshot(page, 'keys');
});

test('a CSV of 1,000 rows with extra columns and a bad row uploads with progress and imports, its bad row named by line', { skip: noBrowser }, async () => {
  const { page } = browser;
  await page.goto(`${h.url}/dashboard/batches`);
  await page.getByLabel('CSV, TSV or XLSX file').setInputFiles(csvPath);
  // A slow line (about 40 KB/s up), so the upload's progress can be watched as a person would.
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 40_000 });
  const progress = page.getByRole('progressbar', { name: 'Upload progress' });
  await page.getByRole('button', { name: 'Upload and see the cost' }).click();
  await progress.waitFor({ state: 'visible' });
  await page.getByText(/^Uploading: [1-9]\d? %$/).waitFor();
  const partway = Number(await progress.getAttribute('value'));
  const total = Number(await progress.getAttribute('max'));
  assert.ok(partway > 0 && partway < total, `progress part-way: ${partway} of ${total}`);
  await page.waitForURL(/\/dashboard\/batches\/new\?list=/, { timeout: 60_000 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  const cost = await page.getByRole('table', { name: /What the batch will verify/ }).innerText();
  assert.match(cost, /Rows in the list\s+1,000/);
  assert.match(cost, /Not addresses \(rejected, free\)\s+1/);
  await assertAccessible(page, 'batch cost after an upload');

  const listId = new URL(page.url()).searchParams.get('list') as string;
  await page.goto(`${h.url}/dashboard/lists/${listId}`);
  assert.match(await page.getByRole('main').innerText(), /State: ready/);
  const bad = await page.getByRole('table', { name: /Rows that are not addresses/ }).innerText();
  assert.match(bad, new RegExp(`${BAD_LINE}\\s+not-an-address\\.example\\.com\\s+.*@`));
  await assertAccessible(page, 'list page');
  await screenshot(page, 'list');
  await page.goto(`${h.url}/dashboard/lists`);
  await assertAccessible(page, 'lists page');
  await screenshot(page, 'lists');
});

test('a batch on the sandbox key reaches 100 % and its results come back as the uploaded file, row by row', { skip: noBrowser }, async () => {
  const { page } = browser;
  await page.goto(`${h.url}/dashboard/batches`);
  await chooseOption(page.getByLabel('List', { exact: true }), /^leads\.csv/);
  await chooseOption(page.getByLabel('Run with key'), /Dashboard scenario/);
  await page.getByRole('button', { name: 'See the cost', exact: true }).click();
  assert.match(await page.getByRole('table', { name: /What the batch will verify/ }).innerText(), /Credits to be held\s+0/);
  await page.getByRole('button', { name: /Start batch/ }).click();
  await page.waitForURL(/\/dashboard\/batches\/[0-9a-f-]{36}$/);
  batchUrl = page.url();
  await page.getByText(/^100 % — ([\d,]+) of \1 addresses final$/).waitFor({ timeout: 90_000 });
  await page.getByRole('link', { name: 'Download all results' }).waitFor();
  await assertAccessible(page, 'finished batch');

  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download all results' }).click();
  const saved = await download;
  assert.equal(saved.suggestedFilename(), 'leads-presend.csv');
  const back = parse(readFileSync((await saved.path()) as string, 'utf8'), { bom: true, relax_column_count: false }) as string[][];
  const sent = uploadRows();
  assert.deepEqual(back[0], [...(sent[0] as string[]), ...RESULT_COLUMNS], 'the header: the original columns, then the result columns');
  assert.equal(back.length, sent.length, 'one row per input row');
  const column = (name: string) => (back[0] as string[]).indexOf(name);
  const sandbox = createSandboxEngine();
  for (let i = 1; i < sent.length; i++) {
    const row = back[i] as string[];
    const original = sent[i] as string[];
    assert.deepEqual(row.slice(0, original.length), original, `row ${i}: the original cells, unchanged`);
    assert.equal(row[column('presend_line')], String(i + 1), `row ${i}: its line in the upload`);
    const email = original[2] as string;
    if (i + 1 === BAD_LINE) {
      assert.equal(row[column('presend_status')], 'rejected');
      assert.equal(row[column('presend_decision')], 'suppress');
      assert.match(row[column('presend_error')] ?? '', /@/);
      continue;
    }
    const expected = (await sandbox.verify(email)).envelope;
    assert.equal(row[column('presend_decision')], expected.decision, `row ${i} (${email}): decision`);
    assert.equal(row[column('presend_verdict')], expected.verdict ?? '', `row ${i} (${email}): verdict`);
  }

  const onlySend = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Only the rows to send' }).click();
  const sendRows = parse(readFileSync((await (await onlySend).path()) as string, 'utf8'), { bom: true }) as string[][];
  assert.ok(sendRows.length > 1);
  assert.ok(sendRows.slice(1).every((r) => r[column('presend_decision')] === 'send'));
  assert.equal(sendRows.length - 1, back.slice(1).filter((r) => r[column('presend_decision')] === 'send').length);
  assert.deepEqual(browser.problems, []);
});

test('the revoked key gets 401 from the API, and another account’s owner cannot open the batch', { skip: noBrowser }, async () => {
  const { page } = browser;
  await page.goto(`${h.url}/dashboard/keys`);
  await page.getByRole('row', { name: /Dashboard scenario/ }).getByRole('link', { name: /Revoke/ }).click();
  await screenshot(page, 'revoke');
  await page.getByRole('button', { name: /Revoke key/ }).click();
  const refused = await h.call('POST', '/v1/verify', { key, idem: `scenario-after-${Date.now()}`, body: { email: 'deliverable@example.com' } });
  assert.equal(refused.status, 401);

  const other = await newOwner(h.backend, h.url);
  const second = await openBrowser();
  try {
    await setPasswordAndSignIn(second.page, other);
    assert.equal((await second.page.goto(batchUrl))?.status(), 404);
    assert.equal((await second.page.goto(`${batchUrl}/results`))?.status(), 404);
    assert.equal((await second.page.goto(`${batchUrl}/results?only=send`))?.status(), 404);
  } finally {
    await second.close();
  }
  // Some live usage today, for the overview's chart: a live batch bills one credit per verdict.
  const live = await createOwnerKey(h.backend.keyManagement, { accountId: owner.accountId, mode: 'live', label: 'Live', actor: { name: owner.email }, now: new Date() });
  const emails = Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? `unknown+${i}@example.com` : `person${i}@example.com`));
  const started = await h.call('POST', '/v1/requests', { key: live.key, idem: `scenario-live-${Date.now()}`, body: { emails } });
  assert.equal(started.status, 202);
  await waitFinal(h, live.key, started.body.request.id);
  await page.goto(`${h.url}/dashboard`);
  const usedToday = await page.getByRole('img', { name: /Credits used per day/ }).getAttribute('aria-labelledby');
  assert.ok(usedToday);
  assert.match(await page.getByRole('main').innerText(), /30 credits used in the last 30 days/, 'ten unknowns are free');
  await assertAccessible(page, 'overview with usage');
  await screenshot(page, 'overview');
});

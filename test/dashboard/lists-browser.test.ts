/**
 * Lists in a real browser: an upload with two address columns waits for the owner to pick one
 * and then imports it in the background; a file that cannot be read fails with its line; an
 * XLSX workbook comes back as an XLSX workbook with the result columns; a list is deleted after
 * a confirmation; another account's owner gets 404 for the list.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertAccessible, noBrowser, openBrowser, screenshot } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn } from './owners.js';
import type { TestOwner } from './owners.js';
import { createOwnerKey } from '../../src/service/keys/managed-keys.js';
import { createXlsxWriter, openTable } from '../../src/files/index.js';

let h: Harness;
let browser: OwnerBrowser;
let owner: TestOwner;
let dir: string;
let listUrl = '';

before(async () => {
  if (noBrowser) return;
  h = await startHarness();
  owner = await newOwner(h.backend, h.url, 100);
  await createOwnerKey(h.backend.keyManagement, { accountId: owner.accountId, mode: 'test', label: 'lists', actor: { name: owner.email }, now: new Date() });
  browser = await openBrowser();
  await setPasswordAndSignIn(browser.page, owner);
  dir = mkdtempSync(join(tmpdir(), 'presend-lists-'));
});
after(async () => {
  await browser?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function upload(path: string): Promise<void> {
  const { page } = browser;
  await page.goto(`${h.url}/dashboard/lists`);
  await page.getByLabel('CSV, TSV or XLSX file').setInputFiles(path);
  await page.getByRole('button', { name: 'Upload list' }).click();
  await page.waitForURL(/\/dashboard\/lists\/[0-9a-f-]{36}$/);
}

test('with two address columns the owner picks one, and the import runs from the kept file', { skip: noBrowser }, async () => {
  const { page } = browser;
  const path = join(dir, 'contacts.csv');
  const lines = ['name,work email,home email'];
  for (let i = 0; i < 50; i++) lines.push(`P${i},undeliverable+${i}@work.example,deliverable+${i}@home.example`);
  writeFileSync(path, lines.join('\n') + '\n');
  await upload(path);
  listUrl = page.url();
  const choice = page.getByRole('group', { name: /Several columns hold addresses/ });
  await choice.waitFor();
  await assertAccessible(page, 'column choice');
  await screenshot(page, 'list-column');
  await choice.getByLabel('home email').check();
  await page.getByRole('button', { name: 'Import this column' }).click();
  // The page follows the import by itself until it is done.
  await page.getByText('State: ready').waitFor({ timeout: 30_000 });
  assert.match(await page.getByRole('main').innerText(), /50 addresses, ready to verify/);
  const entries = (await h.backend.lists.readListSlice(listUrl.split('/').at(-1) as string, 0, 1_000)).map((e) => e.email);
  assert.deepEqual(entries.slice(0, 2), ['deliverable+0@home.example', 'deliverable+1@home.example']);
});

test('a list counts its addresses apart from the rows that are not addresses, and its batch shows those as rejected, not failed', { skip: noBrowser }, async () => {
  const { page } = browser;
  const path = join(dir, 'mixed.csv');
  const cells = [...Array.from({ length: 26 }, (_, i) => `deliverable+${i}@mixed.example`), 'not an address', 'n/a', 'two@@mixed.example', 'nobody', ''];
  writeFileSync(path, ['email', ...cells].join('\n') + '\n');
  await upload(path);
  await page.getByText('State: ready').waitFor({ timeout: 30_000 });
  assert.match(await page.getByRole('main').innerText(), /26 addresses, ready to verify — and 4 rows that are not addresses, kept: they come back rejected, never billed\./);
  await assertAccessible(page, 'list with rows that are not addresses');
  await page.getByRole('link', { name: 'Start a batch from this list' }).click();
  await page.getByRole('button', { name: /Start batch/ }).click();
  await page.getByRole('link', { name: 'Download all results' }).waitFor({ timeout: 60_000 });
  const progress = await page.getByRole('table', { name: 'Counters of this batch' }).innerText();
  assert.match(progress, /Not addresses \(rejected, never billed\)\s+4/);
  assert.match(progress, /Failed \(the engine could not check them\)\s+0/);
  assert.match(progress, /Completed\s+26/);
  await assertAccessible(page, 'finished batch with rejected rows');
});

test('a file that cannot be read fails with the line to look at', { skip: noBrowser }, async () => {
  const { page } = browser;
  const path = join(dir, 'broken.csv');
  writeFileSync(path, 'email,note\na@example.com,ok\nb@example.com,"never closed\nc@example.com,x\n');
  await upload(path);
  const alert = await page.getByRole('alert').innerText();
  assert.match(alert, /The import failed at line 3/);
  assert.match(alert, /quote/);
  assert.match(await page.getByRole('main').innerText(), /State: failed/);
  await assertAccessible(page, 'failed list');
});

test('an XLSX workbook comes back as a workbook, one row per row, with the result columns', { skip: noBrowser }, async () => {
  const { page } = browser;
  const path = join(dir, 'book.xlsx');
  const out = createWriteStream(path);
  const writer = createXlsxWriter(out);
  await writer.writeRow(['Email', 'Segment']);
  for (let i = 0; i < 30; i++) await writer.writeRow([i === 3 ? '' : `${i % 2 ? 'catchall' : 'deliverable'}+${i}@example.com`, `s${i}`]);
  await writer.finish();
  if (!out.closed) await once(out, 'close');
  await upload(path);
  assert.match(await page.getByRole('main').innerText(), /29 addresses, ready to verify/);
  assert.match(await page.getByRole('table', { name: /Rows that are not addresses/ }).innerText(), /5\s+no address in this row/);
  await page.getByRole('link', { name: 'Start a batch from this list' }).click();
  await page.getByRole('button', { name: /Start batch/ }).click();
  await page.getByRole('link', { name: 'Download all results' }).waitFor({ timeout: 60_000 });
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download all results' }).click();
  const saved = await download;
  assert.equal(saved.suggestedFilename(), 'book-presend.xlsx');
  const table = await openTable({ path: (await saved.path()) as string });
  assert.deepEqual(table.layout.header?.slice(0, 3), ['Email', 'Segment', 'presend_line']);
  const rows = [];
  for await (const row of table.rows) rows.push(row.cells);
  assert.equal(rows.length, 30);
  const decision = (table.layout.header ?? []).indexOf('presend_decision');
  assert.deepEqual(rows.slice(0, 4).map((r) => [r[1], r[decision] ?? '']), [['s0', 'send'], ['s1', 'send_with_caution'], ['s2', 'send'], ['s3', 'suppress']], 'a row without an address is suppressed, as in presend batch');
});

test("a list is deleted after a confirmation, and another account's owner cannot see it", { skip: noBrowser }, async () => {
  const { page } = browser;
  const other = await newOwner(h.backend, h.url);
  const second = await openBrowser();
  try {
    await setPasswordAndSignIn(second.page, other);
    assert.equal((await second.page.goto(listUrl))?.status(), 404);
    assert.equal((await second.page.goto(`${listUrl}/delete`))?.status(), 404);
  } finally {
    await second.close();
  }
  await page.goto(listUrl);
  await page.getByRole('link', { name: 'Delete this list' }).click();
  await assertAccessible(page, 'delete confirmation');
  await page.getByRole('button', { name: 'Delete list' }).click();
  assert.match(await page.getByRole('status').first().innerText(), /is deleted/);
  assert.equal((await page.goto(listUrl))?.status(), 404);
});

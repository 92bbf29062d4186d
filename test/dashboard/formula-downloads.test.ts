/**
 * Issue 21, defect 5, on the dashboard's side: every results file it offers — a list's own file
 * back as CSV or XLSX, and a batch of addresses as CSV — escapes an address a spreadsheet would
 * run as a formula (`=cmd|'/Ccalc'!A0@example.com` is a valid address), through the one table
 * writer (src/files/table-writer.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { startHarness, newIdem } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { openTable } from '../../src/files/index.js';
import { DashboardBrowser } from '../adversarial/dashboard-client.js';
import { inlineCell, SHEET_HEAD, SHEET_TAIL, writeWorkbook } from '../files/hostile-workbooks.js';
import { until } from '../until.js';
import { newOwner } from './owners.js';

const ATTACK = "=cmd|'/Ccalc'!A0@example.com";
const ESCAPED = `'${ATTACK}`;

describe('dashboard downloads escape formulas', () => {
  let h: Harness;
  let dir = '';
  let browser: DashboardBrowser;
  let key = '';
  before(async () => {
    h = await startHarness();
    dir = await mkdtemp(join(tmpdir(), 'presend-formula-'));
    const owner = await newOwner(h.backend, h.url);
    browser = new DashboardBrowser(h.url);
    await browser.setPassword(owner.link, owner.password);
    await browser.signIn(owner.email, owner.password);
    key = await browser.createKey('formula');
  });
  after(async () => {
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A batch over `body` with the sandbox key, run to completion; its results file downloaded from the dashboard. */
  async function resultsOf(body: Record<string, unknown>): Promise<{ type: string; body: Buffer }> {
    const created = await h.call('POST', '/v1/requests', { key, idem: newIdem(), body });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const id = created.body.request.id as string;
    await until('the batch to complete', async () => ((await h.call('GET', `/v1/requests/${id}`, { key })).body.request.state === 'completed' ? true : null), 60_000);
    const file = await browser.download(`/dashboard/batches/${id}/results`);
    assert.equal(file.status, 200);
    return file;
  }

  const csvCells = (bytes: Buffer) => (parse(bytes.toString('utf8'), { relax_column_count: true }) as string[][]).flat();

  test('a list uploaded as CSV comes back as CSV with the address escaped, in its own column and in the result columns', async () => {
    const path = join(dir, 'list.csv');
    await writeFile(path, `email,name\n"${ATTACK}",Mallory\nann@example.com,Ann\n`);
    const listId = await browser.upload(path, 'list.csv');
    const file = await resultsOf({ listId });
    assert.match(file.type, /^text\/csv/);
    const cells = csvCells(file.body);
    assert.ok(cells.includes(ESCAPED), `escaped: ${cells.join(' | ')}`);
    assert.ok(!cells.some((cell) => cell.startsWith('=')), 'no cell starts with =');
  });

  test('a list uploaded as XLSX comes back as XLSX with the address escaped', async () => {
    const path = join(dir, 'list.xlsx');
    await writeWorkbook(path, function* () {
      yield `${SHEET_HEAD}<row r="1">${inlineCell('A1', 'email')}</row><row r="2">${inlineCell('A2', ATTACK)}</row>${SHEET_TAIL}`;
    });
    const listId = await browser.upload(path, 'list.xlsx');
    const file = await resultsOf({ listId });
    assert.match(file.type, /spreadsheetml/);
    const table = await openTable({ stream: Readable.from([file.body]) });
    const cells: string[] = [];
    for await (const row of table.rows) cells.push(...row.cells);
    assert.ok(cells.includes(ESCAPED), `escaped: ${cells.join(' | ')}`);
    assert.ok(!cells.some((cell) => cell.startsWith('=')), 'no cell starts with =');
  });

  test('a batch of addresses (no file of its own) comes back as CSV with the address escaped', async () => {
    const file = await resultsOf({ emails: [ATTACK, 'ann@example.com'] });
    const cells = csvCells(file.body);
    assert.ok(cells.includes(ESCAPED), `escaped: ${cells.join(' | ')}`);
    assert.ok(!cells.some((cell) => cell.startsWith('=')), 'no cell starts with =');
  });
});

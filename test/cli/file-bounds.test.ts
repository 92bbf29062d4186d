/**
 * The bounds of reading a file (src/files/limits.ts) on the command line: `presend batch FILE`
 * and `presend lists import FILE` refuse a file past one with exit 6 and a message that names the
 * bound and the variable that sets it, before anything is sent or stored.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../client/live-service.js';
import { bombSheet, writeWorkbook } from '../files/hostile-workbooks.js';

let dir = '';
let rows = '';
let bomb = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'presend-file-bounds-'));
  rows = join(dir, 'rows.csv');
  await writeFile(rows, ['email', ...Array.from({ length: 30 }, (_, i) => `u${i}@example.com`)].join('\n') + '\n');
  bomb = join(dir, 'bomb.xlsx');
  await writeWorkbook(bomb, bombSheet({ cells: 2, cellChars: 5_000_000 }));
});
after(async () => rm(dir, { recursive: true, force: true }));

// Nothing listens there: a refusal must come before any request.
const caller = { PRESEND_BASE_URL: 'http://127.0.0.1:9', PRESEND_API_KEY: `ps_test.${'a'.repeat(40)}` };

test('presend batch FILE refuses a file past PRESEND_FILE_MAX_ROWS, and a workbook cell past 32,767 characters, with exit 6', async () => {
  const many = await runCli(['batch', rows], { ...caller, PRESEND_FILE_MAX_ROWS: '10' });
  assert.equal(many.code, 6, many.stderr);
  assert.match(many.stderr, /line 11: the file has more than 10 rows, the most Presend reads \(PRESEND_FILE_MAX_ROWS\)/);
  const cell = await runCli(['batch', bomb], caller);
  assert.equal(cell.code, 6, cell.stderr);
  assert.match(cell.stderr, /line 1: a cell is longer than 32,767 characters/);
});

test('presend batch - (stdin) stops copying its input past PRESEND_FILE_MAX_MB, with exit 6', async () => {
  const input = `email\n${'u@example.com\n'.repeat(100_000)}`;
  const run = await runCli(['batch', '-'], { ...caller, PRESEND_FILE_MAX_MB: '1' }, input);
  assert.equal(run.code, 6, run.stderr);
  assert.match(run.stderr, /larger than 1 MB, the most Presend reads \(PRESEND_FILE_MAX_MB\)/);
});

test('presend lists import refuses the same files with exit 6 and stores no list', async () => {
  const env = { PRESEND_DATABASE_URL: `sqlite:${join(dir, 'p.db')}`, PRESEND_LOG_LEVEL: 'warn' };
  assert.equal((await runCli(['accounts', 'create', 'acme'], env)).code, 0);
  const many = await runCli(['lists', 'import', rows, '--account', 'acme'], { ...env, PRESEND_FILE_MAX_ROWS: '10' });
  assert.equal(many.code, 6, many.stderr);
  assert.match(many.stderr, /PRESEND_FILE_MAX_ROWS/);
  const cell = await runCli(['lists', 'import', bomb, '--account', 'acme'], env);
  assert.equal(cell.code, 6, cell.stderr);
  assert.match(cell.stderr, /32,767 characters/);
  const listed = await runCli(['lists', 'list', '--account', 'acme', '--json'], env);
  assert.deepEqual(JSON.parse(listed.stdout), []);
});

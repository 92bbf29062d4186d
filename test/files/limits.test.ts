/**
 * Every bound of src/files/limits.ts, on both formats: a file past one is refused with the
 * TableError that names it, as the reading reaches it (and never after holding the excess).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DEFAULT_TABLE_LIMITS, MAX_CELL_CHARS, MAX_CELLS_PER_ROW, openTable, TableError, type TableInput, type TableLimits } from '../../src/files/index.js';
import { bombSheet, inlineCell, repeated, SHEET_HEAD, SHEET_TAIL, writeWorkbook } from './hostile-workbooks.js';

async function readAll(input: TableInput, limits?: TableLimits): Promise<number> {
  const table = await openTable(input, limits ? { limits } : {});
  let rows = 0;
  for await (const _row of table.rows) rows += 1;
  return rows;
}

async function refused(input: TableInput, code: string, words: RegExp, limits?: TableLimits): Promise<TableError> {
  let caught: unknown = null;
  try {
    await readAll(input, limits);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof TableError, `refused with a TableError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.match(caught.message, words);
  return caught;
}

const addressRows = (n: number) => ['email', ...Array.from({ length: n }, (_, i) => `p${i}@example.com`)].join('\n') + '\n';

describe('table bounds', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'presend-limits-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  test('a text file over PRESEND_FILE_MAX_MB is refused, as a path (measured first) and as a stream (counted)', async () => {
    const path = join(dir, 'big.csv');
    await writeFile(path, addressRows(2000));
    const limits = { ...DEFAULT_TABLE_LIMITS, maxBytes: 10_000 };
    await refused({ path }, 'file_too_large', /larger than 10,000 bytes.*PRESEND_FILE_MAX_MB/, limits);
    const chunks = (function* () {
      for (let i = 0; i < 100; i++) yield Buffer.from(`p${i}@example.com,${'x'.repeat(200)}\n`);
    })();
    await refused({ stream: Readable.from(chunks) }, 'file_too_large', /PRESEND_FILE_MAX_MB/, limits);
    assert.equal(await readAll({ path }), 2000, 'the same file within the default bounds: every data row');
  });

  test('more rows than PRESEND_FILE_MAX_ROWS are refused at the first row past it, in CSV and XLSX', async () => {
    const limits = { ...DEFAULT_TABLE_LIMITS, maxRows: 150 };
    const csv = join(dir, 'rows.csv');
    await writeFile(csv, addressRows(200));
    const error = await refused({ path: csv }, 'too_many_rows', /more than 150 rows.*PRESEND_FILE_MAX_ROWS/, limits);
    assert.equal(error.line, 151);
    const xlsx = join(dir, 'rows.xlsx');
    await writeWorkbook(xlsx, function* () {
      yield SHEET_HEAD;
      for (let r = 1; r <= 200; r++) yield `<row r="${r}">${inlineCell(`A${r}`, `p${r}@example.com`)}</row>`;
      yield SHEET_TAIL;
    });
    await refused({ path: xlsx }, 'too_many_rows', /PRESEND_FILE_MAX_ROWS/, limits);
  });

  test('a sheet row numbered far past the bound is refused, without making the rows in between', async () => {
    const xlsx = join(dir, 'gap.xlsx');
    await writeWorkbook(xlsx, function* () {
      yield `${SHEET_HEAD}<row r="1">${inlineCell('A1', 'email')}</row><row r="1048576">${inlineCell('A1048576', 'a@example.com')}</row>${SHEET_TAIL}`;
    });
    const error = await refused({ path: xlsx }, 'too_many_rows', /PRESEND_FILE_MAX_ROWS/, { ...DEFAULT_TABLE_LIMITS, maxRows: 1000 });
    assert.equal(error.line, 1_048_576);
  });

  test(`a cell longer than ${MAX_CELL_CHARS} characters is refused in CSV, in an inline string and in a shared string`, async () => {
    const csv = join(dir, 'cell.csv');
    await writeFile(csv, `email,note\na@example.com,${'n'.repeat(MAX_CELL_CHARS + 1)}\n`);
    assert.equal((await refused({ path: csv }, 'cell_too_long', /longer than 32,767 characters/)).line, 2);
    const inline = join(dir, 'cell.xlsx');
    await writeWorkbook(inline, bombSheet({ cells: 1, cellChars: MAX_CELL_CHARS + 1 }));
    assert.equal((await refused({ path: inline }, 'cell_too_long', /longer than 32,767 characters/)).line, 1);
    const shared = join(dir, 'shared.xlsx');
    await writeWorkbook(
      shared,
      function* () {
        yield `${SHEET_HEAD}<row r="1"><c r="A1" t="s"><v>0</v></c></row>${SHEET_TAIL}`;
      },
      `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>${'s'.repeat(MAX_CELL_CHARS + 1)}</t></si></sst>`,
    );
    await refused({ path: shared }, 'cell_too_long', /shared string 1/);
    // At the bound exactly, the cell is read.
    const fits = join(dir, 'fits.xlsx');
    await writeWorkbook(fits, bombSheet({ cells: 1, cellChars: MAX_CELL_CHARS }));
    assert.equal(await readAll({ path: fits }), 1);
  });

  test('a text the XML parser would gather whole (a comment, CDATA) is refused past the bound, and so is endless nesting', async () => {
    const comment = join(dir, 'comment.xlsx');
    await writeWorkbook(comment, function* () {
      yield `${SHEET_HEAD}<!--`;
      yield* repeated('-a', 400_000);
      yield `-->${SHEET_TAIL}`;
    });
    await refused({ path: comment }, 'cell_too_long', /32,767/);
    const deep = join(dir, 'deep.xlsx');
    await writeWorkbook(deep, function* () {
      yield SHEET_HEAD;
      for (let i = 0; i < 10_000; i++) yield '<x>';
    });
    await refused({ path: deep }, 'malformed_xlsx', /not a spreadsheet part/);
  });

  test(`a row of more than ${MAX_CELLS_PER_ROW} cells is refused in CSV and XLSX`, async () => {
    const csv = join(dir, 'wide.csv');
    await writeFile(csv, `email${','.repeat(MAX_CELLS_PER_ROW)}\na@example.com\n`);
    await refused({ path: csv }, 'too_many_cells', /more than 16,384 cells/);
    const xlsx = join(dir, 'wide.xlsx');
    await writeWorkbook(xlsx, function* () {
      yield `${SHEET_HEAD}<row r="1"><c r="XFE1" t="inlineStr"><is><t>x</t></is></c></row>${SHEET_TAIL}`;
    });
    await refused({ path: xlsx }, 'too_many_cells', /16,384/);
  });

  test('shared strings past 128 MB are refused from the zip directory, before one is held', async () => {
    const xlsx = join(dir, 'shared-strings.xlsx');
    await writeWorkbook(
      xlsx,
      function* () {
        yield `${SHEET_HEAD}<row r="1"><c r="A1" t="s"><v>0</v></c></row>${SHEET_TAIL}`;
      },
      function* () {
        yield '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">';
        const block = '<si><t>someone@example.com</t></si>'.repeat(30_000);
        for (let written = 0; written <= 128 * 1024 * 1024; written += block.length) yield block;
        yield '</sst>';
      },
    );
    await refused({ path: xlsx }, 'unzipped_too_large', /shared strings are more than 128 MB or 4,000,000 strings/);
  });

  test('a workbook that unpacks past PRESEND_XLSX_MAX_UNZIPPED_MB is refused from its zip directory, before anything is unpacked', async () => {
    const xlsx = join(dir, 'unzipped.xlsx');
    // 8 MiB of sheet in a file of a few kilobytes.
    await writeWorkbook(xlsx, bombSheet({ cells: 1, cellChars: 8 * 1024 * 1024 }));
    await refused({ path: xlsx }, 'unzipped_too_large', /unpacks to 8 MB or more, over the 1 MB.*PRESEND_XLSX_MAX_UNZIPPED_MB/, { ...DEFAULT_TABLE_LIMITS, maxUnzippedBytes: 1024 * 1024 });
    // Within the default bounds it is the cell that is refused, as the sheet streams.
    await refused({ path: xlsx }, 'cell_too_long', /32,767/);
  });
});

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { createCsvWriter, createXlsxWriter, escapeFormula, openTable, type TableRow } from '../../src/files/index.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'presend-xlsx-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rowsOf(input: Parameters<typeof openTable>[0]) {
  const table = await openTable(input);
  const rows: TableRow[] = [];
  for await (const row of table.rows) rows.push(row);
  return { layout: table.layout, rows };
}

/** A workbook as Excel-like tools write it: shared strings, a date style, a formula, a gap. */
async function exceljsWorkbook(path: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Contacts');
  sheet.getRow(1).values = ['id', 'name', 'Email Address', 'signed up', 'vip', 'score'];
  sheet.getRow(2).values = [1, 'Ann & Co <ltd>', 'ann@example.com', new Date(Date.UTC(2024, 0, 15)), true, { formula: 'A2*2', result: 2 }];
  sheet.getRow(3).values = [2, { richText: [{ text: 'Bo' }, { text: 'b', font: { bold: true } }] }, ' bob@example.com ', new Date(Date.UTC(2024, 1, 29, 13, 30, 0)), false, 3.5];
  // row 4 left empty on purpose
  sheet.getRow(5).values = [3, 'Carl', 'not-an-address'];
  sheet.getCell('D2').numFmt = 'yyyy-mm-dd';
  sheet.getCell('D3').numFmt = 'yyyy-mm-dd hh:mm';
  await workbook.xlsx.writeFile(path);
}

describe('reading XLSX workbooks', () => {
  test('a workbook written by another library reads as text cells, dates as ISO, with sheet row numbers and gaps as blank rows', async () => {
    const path = join(dir, 'contacts.xlsx');
    await exceljsWorkbook(path);
    const { layout, rows } = await rowsOf({ path });
    assert.equal(layout.format, 'xlsx');
    assert.equal(layout.sheet, 'Contacts');
    assert.equal(layout.emailColumn, 2);
    assert.deepEqual(layout.header, ['id', 'name', 'Email Address', 'signed up', 'vip', 'score']);
    assert.deepEqual(
      rows.map((row) => [row.line, row.cells]),
      [
        [2, ['1', 'Ann & Co <ltd>', 'ann@example.com', '2024-01-15', 'TRUE', '2']],
        [3, ['2', 'Bob', ' bob@example.com ', '2024-02-29 13:30:00', 'FALSE', '3.5']],
        [4, []],
        [5, ['3', 'Carl', 'not-an-address']],
      ],
    );
  });

  test('an XLSX upload given as a stream is read too (spooled to a temporary file, then removed)', async () => {
    const path = join(dir, 'upload.xlsx');
    await exceljsWorkbook(path);
    const { rows } = await rowsOf({ stream: createReadStream(path) });
    assert.equal(rows.length, 4);
    assert.equal(rows[0]?.cells[2], 'ann@example.com');
  });

  test('a zip that is not a workbook is refused as malformed XLSX', async () => {
    const path = join(dir, 'not-a-workbook.xlsx');
    const zip = new ExcelJS.Workbook();
    await zip.xlsx.writeFile(path); // no worksheet at all
    await assert.rejects(rowsOf({ path }), /no worksheet|malformed|not a readable/i);
  });
});

describe('writing tables', () => {
  const rows = [
    ['email', 'note', 'amount'],
    ['=cmd|\'/C calc\'!A0@example.com', '+1 555 0100', '-12.5'],
    ['a@example.com', '@SUM(A1:A2)', '\tleading tab'],
    ['b@example.com', 'x & <y> "z"\u0001', ''],
  ];

  test('formula-like cells get a leading quote, plain numbers do not (OWASP CSV injection)', () => {
    assert.equal(escapeFormula('=1+1'), "'=1+1");
    assert.equal(escapeFormula('+1 555 0100'), "'+1 555 0100");
    assert.equal(escapeFormula('-1+2'), "'-1+2");
    assert.equal(escapeFormula('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(escapeFormula('\t=1'), "'\t=1");
    assert.equal(escapeFormula('\r=1'), "'\r=1");
    assert.equal(escapeFormula('\uff1d1+1'), "'\uff1d1+1");
    assert.equal(escapeFormula('-12.5'), '-12.5');
    assert.equal(escapeFormula('+3'), '+3');
    assert.equal(escapeFormula('plain'), 'plain');
  });

  test('the XLSX writer\'s file opens in exceljs with every cell as written, escaped, and reads back the same with our reader', async () => {
    const path = join(dir, 'out.xlsx');
    const writer = createXlsxWriter(createWriteStream(path));
    for (const row of rows) await writer.writeRow(row);
    await writer.finish();

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    const sheet = workbook.worksheets[0];
    assert.ok(sheet);
    const seen = rows.map((_, r) => rows[0]!.map((__, c) => String(sheet.getRow(r + 1).getCell(c + 1).value ?? '')));
    assert.equal(seen[1]?.[0], "'=cmd|'/C calc'!A0@example.com");
    assert.equal(seen[1]?.[1], "'+1 555 0100");
    assert.equal(seen[1]?.[2], '-12.5');
    assert.equal(seen[2]?.[1], "'@SUM(A1:A2)");
    assert.equal(seen[3]?.[1], 'x & <y> "z"\ufffd', 'XML-special characters survive; a control character becomes U+FFFD');
    assert.equal(sheet.getRow(2).getCell(1).type, ExcelJS.ValueType.String, 'a formula-like cell is a string, never a formula');

    const back = await rowsOf({ path });
    assert.deepEqual(back.layout.header, rows[0]);
    assert.deepEqual(back.rows[0]?.cells, ["'=cmd|'/C calc'!A0@example.com", "'+1 555 0100", '-12.5']);
  });

  test('the CSV writer escapes the same cells and answers in the input\'s delimiter, line ending and BOM', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    const writer = createCsvWriter(out, { delimiter: ';', lineEnding: '\r\n', bom: true });
    for (const row of rows) await writer.writeRow(row);
    await writer.finish();
    const text = Buffer.concat(chunks).toString('utf8');
    assert.ok(text.startsWith('\ufeffemail;note;amount\r\n'));
    assert.ok(text.includes(`'=cmd|'/C calc'!A0@example.com;'+1 555 0100;-12.5\r\n`));
    assert.ok(text.includes(`a@example.com;'@SUM(A1:A2);'\tleading tab\r\n`));
    const path = join(dir, 'out.csv');
    await writeRows(path, rows);
    const { rows: back } = await rowsOf({ path });
    assert.deepEqual(back[2]?.cells, ['b@example.com', 'x & <y> "z"\u0001', '']);
  });
});

async function writeRows(path: string, rows: string[][]): Promise<void> {
  const writer = createCsvWriter(createWriteStream(path), { delimiter: ',', lineEnding: '\n', bom: false });
  for (const row of rows) await writer.writeRow(row);
  await writer.finish();
  await readFile(path);
}

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTable, TableError, type TableOptions, type TableRow } from '../../src/files/index.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'presend-files-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

async function read(path: string, options: TableOptions = {}) {
  const table = await openTable({ path }, options);
  const rows: TableRow[] = [];
  for await (const row of table.rows) rows.push(row);
  return { layout: table.layout, rows, blankBeforeHeader: table.blankBeforeHeader };
}

async function failure(path: string, options: TableOptions = {}): Promise<TableError> {
  try {
    await read(path, options);
  } catch (error) {
    assert.ok(error instanceof TableError, String(error));
    return error;
  }
  assert.fail('expected a TableError');
}

describe('reading CSV-like files', () => {
  test('a header naming the address column in any position and spelling is found (E-mail, Email Address, email_address, EMAIL)', async () => {
    for (const name of ['E-mail', 'Email Address', 'email_address', ' EMAIL ', 'e.mail']) {
      const { layout } = await read(await file('h.csv', `id,first_name,${name},company\n1,Ann,ann@example.com,Acme\n`));
      assert.equal(layout.emailColumn, 2, name);
      assert.deepEqual(layout.header, ['id', 'first_name', name, 'company']);
    }
  });

  test('semicolon, tab and pipe delimiters are detected, and quoted cells keep their delimiters', async () => {
    for (const delimiter of [';', '\t', '|']) {
      const text = ['name', 'email', 'note'].join(delimiter) + '\n' + ['"Doe, Jane"', 'jane@example.com', `"a${delimiter}b"`].join(delimiter) + '\n';
      const { layout, rows } = await read(await file('d.csv', text));
      assert.equal(layout.delimiter, delimiter);
      assert.deepEqual(rows[0]?.cells, ['Doe, Jane', 'jane@example.com', `a${delimiter}b`]);
    }
  });

  test('--delimiter overrides the guess', async () => {
    const { layout, rows } = await read(await file('o.csv', 'email;x\na@example.com;1\n'), { delimiter: ',' });
    assert.equal(layout.delimiter, ',');
    assert.deepEqual(rows[0]?.cells, ['a@example.com;1']);
  });

  test('every row keeps the line it starts on, counting the header, CRLF, blank lines and multi-line quoted cells', async () => {
    const text = '\ufeffemail,note\r\nann@example.com,"two\r\nlines"\r\n\r\nbob@example.com,x\r\n"carl@example.com","three\nlines\nhere"\r\ndan@example.com,y\r\n';
    const { layout, rows } = await read(await file('lines.csv', text));
    assert.equal(layout.bom, true);
    assert.equal(layout.lineEnding, '\r\n');
    assert.equal(layout.headerLine, 1);
    assert.deepEqual(
      rows.map((row) => [row.line, row.cells[0]]),
      [
        [2, 'ann@example.com'],
        [4, ''],
        [5, 'bob@example.com'],
        [6, 'carl@example.com'],
        [9, 'dan@example.com'],
      ],
    );
    assert.equal(rows[0]?.cells[1], 'two\r\nlines');
    assert.equal(rows[0]?.cells[0], 'ann@example.com', 'the BOM is not part of the first header or cell');
  });

  test('a file of bare addresses, one per line, has no header and reads from line 1', async () => {
    const { layout, rows } = await read(await file('bare.txt', 'a@example.com\nb@example.com\n'));
    assert.equal(layout.header, null);
    assert.deepEqual(rows.map((row) => row.line), [1, 2]);
  });

  test('without a named header the column where cells look like addresses is chosen', async () => {
    const { layout } = await read(await file('guess.csv', 'Name,Contact,Phone\nAnn,ann@example.com,1\nBob,bob@example.com,2\n'));
    assert.equal(layout.emailColumn, 1);
    assert.deepEqual(layout.header, ['Name', 'Contact', 'Phone']);
    assert.equal(layout.emailColumnLabel, '"Contact"');
  });

  test('--column takes a header name (case and spacing ignored) or a number from 1', async () => {
    const path = await file('col.csv', 'work email,private email\na@example.com,b@example.com\n');
    assert.equal((await read(path, { column: 'Private_Email' })).layout.emailColumn, 1);
    assert.equal((await read(path, { column: '2' })).layout.emailColumn, 1);
    const unknown = await failure(path, { column: 'mail' });
    assert.equal(unknown.code, 'unknown_column');
    assert.match(unknown.message, /"work email", "private email"/);
  });

  test('a quote that is never closed is reported at the line where its cell starts, not at the end of the file', async () => {
    const error = await failure(await file('quote.csv', 'email,note\na@example.com,ok\nb@example.com,"open\nc@example.com,x\nd@example.com,y\n'));
    assert.equal(error.code, 'unclosed_quote');
    assert.equal(error.line, 3);
    assert.match(error.message, /^line 3:/);
  });

  test('a quote inside an unquoted cell is kept as a character', async () => {
    const { rows } = await read(await file('relaxed.csv', 'email,name\na@example.com,O"Brien\n'));
    assert.equal(rows[0]?.cells[1], 'O"Brien');
  });

  test('UTF-16 with a byte order mark (Excel "Unicode text") and Windows-1252 are decoded', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('email\tname\r\njosé@example.com\tJosé\r\n', 'utf16le')]);
    const a = await read(await file('u16.txt', utf16));
    assert.equal(a.layout.encoding, 'utf-16le');
    assert.equal(a.layout.delimiter, '\t');
    assert.deepEqual(a.rows[0]?.cells, ['josé@example.com', 'José']);
    const latin = Buffer.from('email;name\nrene@example.com;Ren\xe9\n', 'latin1');
    const b = await read(await file('cp1252.csv', latin));
    assert.equal(b.layout.encoding, 'windows-1252');
    assert.deepEqual(b.rows[0]?.cells, ['rene@example.com', 'René']);
  });

  test('a missing file says "file not found" with its path; other formats are refused with advice', async () => {
    const missing = await failure(join(dir, 'nope.csv'));
    assert.equal(missing.code, 'not_found');
    assert.equal(missing.message, `file not found: ${join(dir, 'nope.csv')}`);
    const xls = await failure(await file('old.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0])));
    assert.match(xls.message, /save it as \.xlsx or \.csv/);
    assert.equal((await failure(await file('blob.bin', Buffer.from([1, 2, 0, 3])))).code, 'unsupported_format');
    assert.equal((await failure(await file('empty.csv', ''))).code, 'empty_file');
  });

  test('blank rows above the header are not data rows; blank rows below it are', async () => {
    const { layout, rows, blankBeforeHeader } = await read(await file('blank.csv', '\n\nemail\na@example.com\n\nb@example.com\n'));
    assert.equal(layout.headerLine, 3);
    assert.equal(blankBeforeHeader, 2);
    assert.deepEqual(rows.map((row) => row.line), [4, 5, 6]);
  });

  test('a stream (an upload) reads like a file, and a second reading with the first layout reads the same rows', async () => {
    const text = 'id;Email Address\n1;a@example.com\n2;b@example.com\n';
    const streamed = await openTable({ stream: Readable.from([Buffer.from(text.slice(0, 7)), Buffer.from(text.slice(7))]) });
    const rows: TableRow[] = [];
    for await (const row of streamed.rows) rows.push(row);
    assert.equal(streamed.layout.delimiter, ';');
    const again = await read(await file('again.csv', text), { layout: streamed.layout });
    assert.deepEqual(again.rows, rows);
  });

  test('rows past the sample come through in order (the first 100 decide the layout, the rest stream)', async () => {
    const lines = ['email', ...Array.from({ length: 1000 }, (_, i) => `user${i}@example.com`)];
    const { rows } = await read(await file('long.csv', lines.join('\n') + '\n'));
    assert.equal(rows.length, 1000);
    assert.deepEqual(rows.map((row) => row.line), Array.from({ length: 1000 }, (_, i) => i + 2));
    assert.equal(rows[999]?.cells[0], 'user999@example.com');
  });
});

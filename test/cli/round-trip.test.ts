/**
 * `presend batch FILE --out RESULTS` as a person runs it: a child process against a real
 * `presend serve` with a sandbox key, on files with extra columns, duplicates, blank and bad
 * rows, other headers and delimiters, XLSX, and 25,000 rows. The output is read back with an
 * independent parser (csv-parse, exceljs) and compared with the input row by row.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { runCli, startLiveService, type CliRun, type LiveService } from '../client/live-service.js';

const RESULT_COLUMNS = 16;

describe('presend batch FILE --out: your file back, row for row', () => {
  let service: LiveService;
  let dir: string;
  let env: Record<string, string>;
  const presend = (args: string[], input?: string): Promise<CliRun> => runCli(args, env, input);

  before(async () => {
    service = await startLiveService({ accounts: [{ name: 'lists', credits: 0, test: true }] });
    dir = await mkdtemp(join(tmpdir(), 'presend-round-trip-'));
    env = { PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: service.keyOf('lists') };
  });
  after(async () => {
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('a semicolon file with BOM, CRLF, an E-mail column third, extra columns, a multi-line cell, duplicates, blank and bad rows comes back whole, in order', async () => {
    const input = join(dir, 'crm.csv');
    const lines = [
      'id;name;E-mail;notes',
      '1;Ann;deliverable+ann@example.com;"first line\r\nsecond line"',
      '2;Bob;undeliverable@example.com;',
      '',
      '3;Carl;bad@;x',
      '4;Dan; DELIVERABLE+ann@EXAMPLE.com ;dup of 1? no: local part case differs',
      '5;Eve;deliverable+ann@Example.COM;dup of 1',
      '6;Fay;"=1+1@example.com";formula',
      '7;Gus;;no address',
    ];
    await writeFile(input, '\ufeff' + lines.join('\r\n') + '\r\n');
    const out = join(dir, 'crm-results.csv');
    const run = await presend(['batch', input, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /addresses in "E-mail" \(column 3\)/);
    assert.match(run.stderr, /line 6: "bad@" — empty_domain/, "the quoted cell of line 2 spans two lines");
    assert.match(run.stderr, /1 address had spaces around it/);

    const text = await readFile(out, 'utf8');
    assert.ok(text.startsWith('\ufeffid;name;E-mail;notes;presend_line;'), 'the BOM and the delimiter of the input');
    assert.ok(text.includes('\r\n'), 'CRLF like the input');
    const original = parse(await readFile(input), { bom: true, delimiter: ';', relax_column_count: true }) as string[][];
    const written = parse(text, { bom: true, delimiter: ';' }) as string[][];
    assert.equal(written.length, original.length, 'one row per row, the header included');
    const header = written[0] as string[];
    const column = (name: string) => header.indexOf(name);
    assert.equal(header.length, 4 + RESULT_COLUMNS);
    for (let i = 1; i < original.length; i++) {
      const row = written[i] as string[];
      const own = (original[i] as string[]).map((cell) => (cell.startsWith('=') ? `'${cell}` : cell));
      assert.deepEqual(row.slice(0, own.length), own, `row ${i}: your cells, as written`);
    }
    const pick = (name: string) => written.slice(1).map((row) => row[column(name)]);
    assert.deepEqual(pick('presend_line'), ['2', '4', '5', '6', '7', '8', '9', '10'], 'lines counted as in the file (the quoted cell spans two)');
    assert.deepEqual(pick('presend_row'), ['address', 'address', 'blank', 'invalid', 'address', 'duplicate', 'address', 'invalid']);
    assert.deepEqual(pick('presend_decision'), ['send', 'suppress', '', 'suppress', 'send', 'send', 'send', 'suppress']);
    assert.deepEqual(pick('presend_duplicate_of'), ['', '', '', '', '', '2', '', '']);
    assert.deepEqual(pick('presend_email')[4], ' DELIVERABLE+ann@EXAMPLE.com ', 'the address as given');
    assert.deepEqual(pick('presend_normalized_email')[4], 'DELIVERABLE+ann@example.com');
    assert.match(pick('presend_error')[7] ?? '', /^empty/);
    assert.equal(pick('presend_email')[6], "'=1+1@example.com", 'a formula-like cell is escaped in the result columns too');
    await assert.rejects(access(`${out}.partial`));
  });

  test('a headerless tab-separated file with --column 2 gets a header, and XLSX out opens in exceljs with the same rows', async () => {
    const input = join(dir, 'plain.tsv');
    await writeFile(input, 'x1\tcatchall@example.com\t+44 20 7946 0958\nx2\trole@example.com\t-12.5\nx3\tcatchall@example.com\t@home\n');
    const out = join(dir, 'plain.xlsx');
    const run = await presend(['batch', input, '--column', '2', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /tab-separated, no header row, addresses in column 2/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(out);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    const rows: string[][] = [];
    sheet.eachRow({ includeEmpty: true }, (row) => rows.push((row.values as unknown[]).slice(1).map((v) => String(v ?? ''))));
    assert.deepEqual(rows[0]?.slice(0, 4), ['column_1', 'column_2', 'column_3', 'presend_line']);
    assert.deepEqual(
      rows.slice(1).map((row) => row.slice(0, 3)),
      [
        ['x1', 'catchall@example.com', "'+44 20 7946 0958"],
        ['x2', 'role@example.com', '-12.5'],
        ['x3', 'catchall@example.com', "'@home"],
      ],
    );
    const decision = (rows[0] ?? []).indexOf('presend_decision');
    assert.deepEqual(
      rows.slice(1).map((row) => row[decision]),
      ['send_with_caution', 'send_with_caution', 'send_with_caution'],
    );
  });

  test('an XLSX file in (sheet row numbers, Email Address header) and --only send out', async () => {
    const input = join(dir, 'contacts.xlsx');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('People');
    sheet.getRow(1).values = ['First', 'Email Address', 'Joined'];
    sheet.getRow(2).values = ['Ann', 'deliverable@example.com', new Date(Date.UTC(2023, 4, 1))];
    sheet.getRow(3).values = ['Bob', 'undeliverable@example.com', new Date(Date.UTC(2023, 4, 2))];
    sheet.getRow(5).values = ['Cleo', 'deliverable+c@example.com', new Date(Date.UTC(2023, 4, 3))];
    sheet.getColumn(3).numFmt = 'yyyy-mm-dd';
    await workbook.xlsx.writeFile(input);
    const out = join(dir, 'send.csv');
    const run = await presend(['batch', input, '--out', out, '--only', 'send']);
    assert.equal(run.code, 0, run.stderr);
    const rows = parse(await readFile(out, 'utf8'), { columns: true }) as Record<string, string>[];
    assert.deepEqual(
      rows.map((row) => [row.First, row['Email Address'], row.Joined, row.presend_line, row.presend_decision]),
      [
        ['Ann', 'deliverable@example.com', '2023-05-01', '2', 'send'],
        ['Cleo', 'deliverable+c@example.com', '2023-05-03', '5', 'send'],
      ],
    );
  });

  test('25,000 rows with 5,000 duplicates: two batches, one output row per input row in order, and a re-run replays instead of starting over', async () => {
    const input = join(dir, 'big.csv');
    const lines = ['id,email,segment'];
    for (let i = 0; i < 25_000; i++) lines.push(`${i},user${i < 20_000 ? i : i - 20_000}@example.com,s${i % 7}`);
    await writeFile(input, lines.join('\n') + '\n');
    const out = join(dir, 'big-results.csv');
    const run = await presend(['batch', input, '--out', out, '--json']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { input: { counts: { rows: number; unique: number; duplicates: number } }; batches: { request: { id: string }; replayed?: boolean; counters: { unique: number } }[]; output: { rows: number } };
    assert.deepEqual([report.input.counts.rows, report.input.counts.unique, report.input.counts.duplicates], [25_000, 20_000, 5_000]);
    assert.deepEqual(report.batches.map((batch) => batch.counters.unique), [10_000, 10_000], 'duplicates do not count against the cap');
    assert.equal(report.output.rows, 25_000);

    const written = parse(await readFile(out, 'utf8'), { columns: true }) as Record<string, string>[];
    assert.equal(written.length, 25_000);
    written.forEach((row, i) => {
      const first = i < 20_000 ? i : i - 20_000;
      assert.equal(row.id, String(i));
      assert.equal(row.email, `user${first}@example.com`);
      assert.equal(row.presend_line, String(i + 2));
      assert.equal(row.presend_decision, 'send', `row ${i}`);
      assert.equal(row.presend_duplicate_of, i < 20_000 ? '' : String(first + 2));
    });

    const again = await presend(['batch', input, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const replay = JSON.parse(again.stdout) as { batches: { request: { id: string }; replayed?: boolean }[] };
    assert.deepEqual(
      replay.batches.map((batch) => [batch.request.id, batch.replayed]),
      report.batches.map((batch) => [batch.request.id, true]),
    );
  });

  test('the same file through lists import and batch --list-id gets the same decisions as batch FILE, bad rows included', async () => {
    const input = join(dir, 'both-paths.csv');
    await writeFile(input, 'name,Email\nAnn,deliverable@example.com\nBob,not an address\nCleo,undeliverable@example.com\nDan,x@[192.0.2.1]\n,\n');
    const out = join(dir, 'both-paths-results.csv');
    const fromFile = await presend(['batch', input, '--out', out]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const rows = parse(await readFile(out, 'utf8'), { columns: true }) as Record<string, string>[];

    const imported = await runCli(['lists', 'import', input, '--account', 'lists', '--json'], service.adminEnv);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /line 3: "not an address"/);
    const listId = (JSON.parse(imported.stdout) as { id: string }).id;
    const listOut = join(dir, 'both-paths-list.ndjson');
    const fromList = await presend(['batch', '--list-id', listId, '--out', listOut]);
    assert.equal(fromList.code, 0, fromList.stderr);
    const items = new Map(
      (await readFile(listOut, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { email: string; state: string; presend: { decision: string; verdict: string | null; reasons: string[] } })
        .map((item) => [item.email, item]),
    );
    for (const row of rows.filter((r) => r.presend_row !== 'blank')) {
      const item = items.get(row.presend_normalized_email || (row.presend_email ?? '').trim());
      assert.ok(item, `the list path has ${row.presend_email}`);
      assert.deepEqual(
        [row.presend_status, row.presend_decision, row.presend_verdict, (row.presend_reasons ?? '').replace(/;sandbox$/, '')],
        [item.state, item.presend.decision, item.presend.verdict ?? '', item.presend.reasons.filter((r) => r !== 'sandbox').join(';')],
        `${row.presend_email}: same answer on both paths`,
      );
    }
    assert.equal(items.size, 4, 'the blank row is not an entry');
  });

  test('a file that cannot be read names the line and exits 6; a missing one says so and exits 2', async () => {
    const broken = join(dir, 'broken.csv');
    await writeFile(broken, 'email,note\na@example.com,ok\nb@example.com,"open\nc@example.com,x\n');
    const bad = await presend(['batch', broken, '--out', join(dir, 'never.csv')]);
    assert.equal(bad.code, 6, bad.stderr);
    assert.match(bad.stderr, /line 3: a quoted cell starts in this row/);
    const missing = await presend(['batch', join(dir, 'nope.csv')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /file not found: .*nope\.csv/);
    assert.doesNotMatch(missing.stderr, /ENOENT/);
  });
});

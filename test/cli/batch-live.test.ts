import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { runCli, startLiveService, type CliRun, type LiveService } from '../client/live-service.js';

const CSV_HEADER = 'email,state,decision,verdict,confidence,score,reasons,evidence_class,provider_family,billing_disposition,billing_credits,did_you_mean,checked_at';

describe('presend batch --list-id, job and results, as child processes against a real presend serve', () => {
  let service: LiveService;
  let dir: string;
  let env: Record<string, string>;

  const presend = (args: string[], input?: string): Promise<CliRun> => runCli(args, env, input);

  before(async () => {
    service = await startLiveService({ env: { PRESEND_SANDBOX_RECHECK_DELAY_MS: '500' }, accounts: [{ name: 'batcher', credits: 0, test: true }] });
    dir = await mkdtemp(join(tmpdir(), 'presend-cli-test-'));
    env = { PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: service.keyOf('batcher') };
  });
  after(async () => {
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('batch from stdin prints its batches, then job --wait and results --all export them as NDJSON and as CSV', async () => {
    const created = await presend(['batch', '-', '--json'], 'deliverable+1@example.com\nfull@example.com\ndisposable@example.com\n');
    assert.equal(created.code, 0, created.stderr);
    const report = JSON.parse(created.stdout) as { batches: { request: { id: string } }[]; input: { counts: { unique: number } } };
    assert.equal(report.input.counts.unique, 3);
    assert.equal(report.batches.length, 1);
    const id = report.batches[0]?.request.id as string;

    const waited = await presend(['job', id, '--wait', '--json']);
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal((JSON.parse(waited.stdout) as { request: { state: string } }).request.state, 'completed');

    const exported = await presend(['results', id, '--all', '--format', 'ndjson', '--limit', '1']);
    assert.equal(exported.code, 0, exported.stderr);
    const items = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; presend: { verdict: string } });
    assert.deepEqual(items.map((item) => item.email).sort(), ['deliverable+1@example.com', 'disposable@example.com', 'full@example.com']);
    assert.ok(items.every((item) => item.presend.verdict));

    const csvFile = join(dir, 'export.csv');
    const toCsv = await presend(['results', id, '--all', '--out', csvFile]);
    assert.equal(toCsv.code, 0, toCsv.stderr);
    const text = await readFile(csvFile, 'utf8');
    assert.equal(text.split('\n')[0], CSV_HEADER);
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    assert.deepEqual(rows.map((row) => row.email).sort(), items.map((item) => item.email).sort());
    assert.match(toCsv.stderr, /3 results written to/);
    await assert.rejects(access(`${csvFile}.partial`), 'the partial file was renamed');
  });

  test('results without --all prints one page as JSON with its cursor, and --cursor continues from it', async () => {
    const created = await presend(['batch', '-', '--wait', '--json'], 'a1@example.com\na2@example.com\na3@example.com\n');
    assert.equal(created.code, 0, created.stderr);
    const id = (JSON.parse(created.stdout) as { batches: { request: { id: string } }[] }).batches[0]?.request.id as string;
    const run = await presend(['results', id, '--limit', '2', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const page = JSON.parse(run.stdout) as { results: { email: string }[]; nextCursor: string | null };
    assert.equal(page.results.length, 2);
    assert.equal(typeof page.nextCursor, 'string');
    const rest = await presend(['results', id, '--cursor', page.nextCursor as string, '--format', 'csv']);
    assert.equal(rest.code, 0, rest.stderr);
    const rows = parse(rest.stdout, { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, 1);
    assert.ok(!page.results.some((item) => item.email === rows[0]?.email));
  });

  test('a stored list imported with lists import is verified with batch --list-id and exported', async () => {
    const file = join(dir, 'list.csv');
    await writeFile(file, 'email\ndeliverable@example.com\nundeliverable@example.com\n');
    const single = join(dir, 'single.csv');
    await writeFile(single, 'email\nrole@example.com\n');
    const imported = await runCli(['lists', 'import', file, '--account', 'batcher', '--json'], service.adminEnv);
    assert.equal(imported.code, 0, imported.stderr);
    const listId = (JSON.parse(imported.stdout) as { id: string }).id;
    const out = join(dir, 'list-results.ndjson');
    const run = await presend(['batch', '--list-id', listId, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const items = (await readFile(out, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { email: string });
    assert.deepEqual(items.map((item) => item.email).sort(), ['deliverable@example.com', 'undeliverable@example.com']);
    assert.match(run.stderr, /2 unique addresses/);
    const one = await runCli(['lists', 'import', single, '--account', 'batcher'], service.adminEnv);
    assert.equal(one.code, 0, one.stderr);
    const oneRun = await presend(['batch', '--list-id', one.stdout.trim(), '--json']);
    assert.equal(oneRun.code, 0, oneRun.stderr);
    assert.match(oneRun.stderr, /: 1 list entry$/m, 'one entry, not "1 list entries"');
  });

  test('every CSV the CLI writes escapes a formula-like address: results (one page, --all --out) and batch --list-id --out', async () => {
    // A valid address (every character before the @ is allowed) that a spreadsheet would run.
    const attack = "=cmd|'/Ccalc'!A0@example.com";
    const escaped = `'${attack}`;
    const emailsOf = (text: string) => (parse(text, { columns: true }) as Record<string, string>[]).map((row) => row.email);

    // Quoted: unquoted, the | in it would be read as a cell delimiter.
    const created = await presend(['batch', '-', '--json'], `email\n"${attack}"\ndeliverable@example.com\n`);
    assert.equal(created.code, 0, created.stderr);
    const id = (JSON.parse(created.stdout) as { batches: { request: { id: string } }[] }).batches[0]?.request.id as string;
    assert.equal((await presend(['job', id, '--wait', '--json'])).code, 0);

    const page = await presend(['results', id, '--format', 'csv']);
    assert.equal(page.code, 0, page.stderr);
    assert.deepEqual(emailsOf(page.stdout).sort(), [escaped, 'deliverable@example.com'].sort(), 'results --format csv (stdout)');

    const all = join(dir, 'formula-all.csv');
    assert.equal((await presend(['results', id, '--all', '--out', all])).code, 0);
    assert.deepEqual(emailsOf(await readFile(all, 'utf8')).sort(), [escaped, 'deliverable@example.com'].sort(), 'results --all --out x.csv');

    const file = join(dir, 'formula-list.csv');
    await writeFile(file, `email\n"${attack}"\n`);
    const imported = await runCli(['lists', 'import', file, '--account', 'batcher', '--json'], service.adminEnv);
    assert.equal(imported.code, 0, imported.stderr);
    const out = join(dir, 'formula-list-results.csv');
    const run = await presend(['batch', '--list-id', (JSON.parse(imported.stdout) as { id: string }).id, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const text = await readFile(out, 'utf8');
    assert.deepEqual(emailsOf(text), [escaped], 'batch --list-id --out x.csv');
    assert.ok(!/(^|,)=cmd/m.test(text), `no cell starts with the formula:\n${text}`);
  });
});

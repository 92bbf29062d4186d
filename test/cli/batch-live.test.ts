import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { runCli, startLiveService, type CliRun, type LiveService } from '../client/live-service.js';

const CSV_HEADER = 'email,state,decision,verdict,confidence,score,reasons,evidence_class,provider_family,billing_disposition,billing_credits,did_you_mean,checked_at';

describe('presend batch, job and results, as child processes against a real presend serve', () => {
  let service: LiveService;
  let dir: string;
  let env: Record<string, string>;

  const presend = (args: string[], input?: string): Promise<CliRun> => runCli(args, env, input);

  before(async () => {
    service = await startLiveService({ env: { PRESEND_RECHECK_DELAY_MS: '500' }, accounts: [{ name: 'batcher', credits: 0, test: true }] });
    dir = await mkdtemp(join(tmpdir(), 'presend-cli-test-'));
    env = { PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: service.keyOf('batcher') };
  });
  after(async () => {
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('batch --wait --out writes a complete CSV with the flattened envelope columns', async () => {
    const input = join(dir, 'leads.csv');
    const out = join(dir, 'results.csv');
    await writeFile(input, 'name,email\nA,deliverable@example.com\nB,undeliverable@example.com\nC,greylisted@example.com\nD,catchall@example.com\nE,deliverable@example.com\n');
    const run = await presend(['batch', input, '--wait', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const text = await readFile(out, 'utf8');
    assert.equal(text.split('\n')[0], CSV_HEADER);
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, 4, 'one row per unique address');
    const byEmail = new Map(rows.map((row) => [row.email, row]));
    assert.equal(byEmail.get('deliverable@example.com')?.decision, 'send');
    assert.equal(byEmail.get('undeliverable@example.com')?.verdict, 'UNDELIVERABLE_NO_MAILBOX');
    assert.equal(byEmail.get('catchall@example.com')?.verdict, 'CATCH_ALL');
    assert.ok(rows.every((row) => row.checked_at !== '' && row.billing_disposition !== ''));
    assert.ok(rows.some((row) => row.reasons?.includes(';')), 'several reasons share one cell, joined by ;');
    await assert.rejects(access(`${out}.partial`), 'the partial file was renamed');
    assert.match(run.stdout, /state\s+completed/);
  });

  test('batch from stdin prints the request, then job --wait and results --all export it as NDJSON and as CSV', async () => {
    const created = await presend(['batch', '-', '--json'], 'deliverable+1@example.com\nfull@example.com\ndisposable@example.com\n');
    assert.equal(created.code, 0, created.stderr);
    const id = (JSON.parse(created.stdout) as { request: { id: string } }).request.id;

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
    const rows = parse(await readFile(csvFile, 'utf8'), { columns: true }) as Record<string, string>[];
    assert.deepEqual(rows.map((row) => row.email).sort(), items.map((item) => item.email).sort());
    assert.match(toCsv.stderr, /3 results written to/);
  });

  test('results without --all prints one page as JSON with its cursor, and --cursor continues from it', async () => {
    const created = await presend(['batch', '-', '--wait', '--json'], 'a1@example.com\na2@example.com\na3@example.com\n');
    assert.equal(created.code, 0, created.stderr);
    const id = (JSON.parse(created.stdout) as { request: { id: string } }).request.id;
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
});

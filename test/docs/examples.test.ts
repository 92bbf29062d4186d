/**
 * The README's and docs' examples, run: the sandbox table and `presend verify` against a real
 * `presend serve` with a sandbox key, the round trip of docs/cli.md on docs/examples/leads.csv,
 * and `presend check` against the mail world `presend mailworld` starts. A doc that no longer
 * says what Presend does fails here.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import { parse } from 'csv-parse/sync';
import { CLI_NODE_ARGS } from '../cli-entry.js';
import { REPO_ROOT, runCli, startLiveService, type LiveService } from '../client/live-service.js';
import { consoleExamples, docFiles, markdownTable, readDoc, shownFile, textTable } from './markdown.js';

describe('links and copied documents', () => {
  test('every relative link in README.md and docs/ points at a file of the repository', () => {
    const broken: string[] = [];
    for (const file of docFiles()) {
      for (const match of readDoc(file).matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        const target = match[1] as string;
        if (/^[a-z]+:/i.test(target)) continue;
        const path = resolve(REPO_ROOT, dirname(file), target);
        if (!path.startsWith(REPO_ROOT) || !existsSync(path)) broken.push(`${file}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  test('docs/interface-spec.md and docs/design.md are the brief\'s documents, verbatim under one line saying so', (t) => {
    const shared = resolve(REPO_ROOT, '../shared');
    for (const [copy, original] of [
      ['docs/interface-spec.md', 'interface-spec.md'],
      ['docs/design.md', 'DESIGN.md'],
    ] as const) {
      const text = readDoc(copy);
      assert.match(text.split('\n')[0] ?? '', /^> Copied verbatim from the project brief/);
      if (!existsSync(join(shared, original))) {
        t.diagnostic(`${join(shared, original)} is not here; only the header line was checked`);
        continue;
      }
      assert.equal(text.split('\n').slice(2).join('\n'), readFileSync(join(shared, original), 'utf8'), `${copy} differs from the brief's ${original}`);
    }
  });
});

describe('sandbox examples, against a real presend serve with a sandbox key', () => {
  let service: LiveService;
  let dir: string;
  let env: Record<string, string>;

  before(async () => {
    service = await startLiveService({ accounts: [{ name: 'docs', credits: 0, test: true }] });
    dir = await mkdtemp(join(tmpdir(), 'presend-docs-'));
    env = { PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: service.keyOf('docs') };
  });
  after(async () => {
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the README\'s sandbox table is what a sandbox key answers, local part by local part', async () => {
    const rows = markdownTable('README.md', 'local part');
    assert.ok(rows.length >= 12, 'the table lists every sandbox local part');
    const addresses = rows.map(([local]) => (local === 'anything else' ? 'jane.doe@example.com' : `${(local ?? '').replace(/[`@]/g, '')}+docs@example.com`));
    const run = await runCli(['verify', ...addresses, '--timeout', '1500', '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    const answers = JSON.parse(run.stdout) as Array<{ status: string; presend: { verdict: string | null; decision: string | null } }>;
    rows.forEach(([local, verdict, decision], i) => {
      const answer = answers[i];
      if (local === '`slow@`') {
        assert.notEqual(answer?.status, 'completed', 'slow@ is still running when the wait ends (202)');
        assert.equal(answer?.presend.decision, null);
        return;
      }
      assert.deepEqual([answer?.presend.verdict, answer?.presend.decision], [verdict, decision], `${local}`);
    });
  });

  test('the `presend verify` example of docs/cli.md prints the decisions and verdicts shown', async () => {
    const examples = consoleExamples('docs/cli.md').filter((example) => example.args[0] === 'verify');
    assert.ok(examples.length > 0);
    for (const example of examples) {
      const run = await runCli(example.args, env);
      assert.equal(run.code, 0, run.stderr);
      const pick = (rows: Record<string, string>[]) => rows.map((row) => [row.email, row.decision, row.verdict, row.reasons]);
      assert.deepEqual(pick(textTable(run.stdout.trimEnd().split('\n'))), pick(textTable(example.output)), `presend ${example.args.join(' ')}`);
    }
  });

  test('the round trip of docs/cli.md on docs/examples/leads.csv writes the file shown there, cell for cell', async () => {
    const [example] = consoleExamples('docs/cli.md').filter((e) => e.args[0] === 'batch' && e.args.includes('docs/examples/leads.csv'));
    assert.ok(example, 'docs/cli.md shows the round trip');
    const out = join(dir, 'results.csv');
    const args = example.args.map((arg) => (arg === 'results.csv' ? out : arg));
    const run = await runCli(args, env);
    assert.equal(run.code, 0, run.stderr);

    // checked_at is the time of the run; every other cell must be as the docs show it.
    const withoutTime = (rows: Record<string, string>[]) => rows.map(({ presend_checked_at: _time, ...rest }) => rest);
    const shown = parse(shownFile('docs/cli.md', 'results.csv').join('\n') + '\n', { columns: true }) as Record<string, string>[];
    const written = parse(await readFile(out, 'utf8'), { columns: true }) as Record<string, string>[];
    assert.deepEqual(withoutTime(written), withoutTime(shown));

    // The report is the one shown, but for the batch id and the output path.
    const normalise = (lines: string[]) => lines.map((line) => line.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'ID').replace(out, 'results.csv'));
    assert.deepEqual(normalise(run.stderr.trimEnd().split('\n')), normalise(example.output));
  });
});

interface PrintedWorld {
  env: Record<string, string>;
  samples: Array<{ email: string; expected: string }>;
}

/** A fresh `presend mailworld` for one test: greylisting remembers who asked before. */
async function withMailWorld(body: (world: PrintedWorld) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [...CLI_NODE_ARGS, 'mailworld', '--json'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  try {
    let text = '';
    child.stdout.setEncoding('utf8');
    for await (const chunk of child.stdout as AsyncIterable<string>) {
      text += chunk;
      if (/\n}\n$/.test(text)) break;
    }
    await body(JSON.parse(text) as PrintedWorld);
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

function check(world: PrintedWorld, addresses: string[], json: boolean) {
  return runCli(['check', ...addresses, ...(json ? ['--json'] : [])], { ...world.env, PRESEND_SMTP_TIMEOUT_MS: '3000', PRESEND_DNS_TIMEOUT_MS: '1500' });
}

describe('mail world examples, against `presend mailworld`', () => {
  test('the README\'s `presend check` example answers with the verdicts and decisions shown', async () => {
    const examples = consoleExamples('README.md').filter((example) => example.args[0] === 'check');
    assert.equal(examples.length, 1);
    const example = examples[0] as (typeof examples)[number];
    await withMailWorld(async (world) => {
      const run = await check(world, example.args.slice(1), false);
      assert.equal(run.code, 0, run.stderr);
      // Rows print as each result is known: the same rows, in the order they came.
      const pick = (rows: Record<string, string>[]) => rows.map((row) => [row.address, row.verdict, row.decision].join(' ')).sort();
      assert.deepEqual(pick(textTable(run.stdout.trimEnd().split('\n'))), pick(textTable(example.output)));
    });
  });

  test('every sample address `presend mailworld` lists gets the verdict listed for it from a first `presend check`', async () => {
    await withMailWorld(async (world) => {
      assert.ok(world.samples.length > 20);
      const run = await check(
        world,
        world.samples.map((sample) => sample.email),
        true,
      );
      assert.equal(run.code, 0, run.stderr);
      const verdicts = new Map((JSON.parse(run.stdout) as Array<{ input: string; envelope: { verdict: string } }>).map((r) => [r.input, r.envelope.verdict]));
      const wrong = world.samples.filter((sample) => verdicts.get(sample.email) !== sample.expected).map((s) => `${s.email}: listed ${s.expected}, checked ${verdicts.get(s.email)}`);
      assert.deepEqual(wrong, []);
    });
  });
});

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startLiveService, type CliRun, type LiveService } from '../client/live-service.js';

describe('presend verify, batch of a stored list and the error exits, as child processes against a real presend serve', () => {
  let service: LiveService;
  let env: Record<string, string>;
  const runs: CliRun[] = [];

  async function presend(args: string[], extraEnv: Record<string, string> = {}, input?: string): Promise<CliRun> {
    const run = await runCli(args, { ...env, ...extraEnv }, input);
    runs.push(run);
    return run;
  }

  before(async () => {
    service = await startLiveService({
      accounts: [
        { name: 'cli', credits: 0, test: true },
        { name: 'broke', credits: 0, test: false },
      ],
    });
    env = { PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: service.keyOf('cli') };
  });
  after(async () => {
    await service?.stop();
  });

  test('verify prints one JSON result per address with --json and exits 0', async () => {
    const run = await presend(['verify', 'deliverable@example.com', 'undeliverable@example.com', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(run.stdout) as { presend: { decision: string; verdict: string } }[];
    assert.deepEqual(
      results.map((r) => [r.presend.verdict, r.presend.decision]),
      [
        ['DELIVERABLE', 'send'],
        ['UNDELIVERABLE_NO_MAILBOX', 'suppress'],
      ],
    );
  });

  test('verify without --json prints a table naming each address and its decision', async () => {
    const run = await presend(['verify', 'role@example.com']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^email\s+decision\s+verdict/m);
    assert.match(run.stdout, /role@example\.com\s+send_with_caution\s+ROLE/);
  });

  test('verify of a slow address reports pending with its engine job id, exits 0 and does not resubmit', async () => {
    const run = await presend(['verify', 'slow@example.com', '--timeout', '50']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /slow@example\.com\s+pending/);
    assert.match(run.stderr, /engine job \S+.*do not resubmit/);
  });

  test('a bad key exits 3 and never prints the key', async () => {
    const badKey = 'ps_test.' + 'Q'.repeat(40);
    const run = await presend(['verify', 'deliverable@example.com', '--json'], { PRESEND_API_KEY: badKey });
    assert.equal(run.code, 3);
    assert.match(run.stderr, /unauthorized/);
    assert.ok(!run.stderr.includes(badKey) && !run.stdout.includes(badKey));
  });

  test('a live key without credits exits 4 on a batch', async () => {
    const run = await presend(['batch', '-'], { PRESEND_API_KEY: service.keyOf('broke') }, 'someone@example.com\n');
    assert.equal(run.code, 4);
    assert.match(run.stderr, /insufficient_credits/);
  });

  test('an unknown request exits 1 with the service code and correlation id', async () => {
    const run = await presend(['job', '00000000-0000-4000-8000-000000000000']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /request_not_found, HTTP 404, correlation id \S+/);
  });

  test('batch --list-id verifies a stored list and --format json writes the results as one JSON array', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'presend-cli-list-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'list.csv');
    await writeFile(file, 'email\nrole@example.com\nundeliverable@example.com\n');
    const imported = await runCli(['lists', 'import', file, '--account', 'cli', '--json'], service.adminEnv);
    assert.equal(imported.code, 0, imported.stderr);
    const listId = (JSON.parse(imported.stdout) as { id: string }).id;
    const out = join(dir, 'list-results.json');
    const run = await presend(['batch', '--list-id', listId, '--out', out, '--format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const items = JSON.parse(await readFile(out, 'utf8')) as { email: string; presend: { decision: string } }[];
    assert.deepEqual(
      items.map((item) => [item.email, item.presend.decision]).sort(),
      [
        ['role@example.com', 'send_with_caution'],
        ['undeliverable@example.com', 'suppress'],
      ],
    );
    assert.match(run.stdout, /mode\s+list/);
  });

  test('no command printed the sandbox or the live key', () => {
    for (const run of runs) {
      for (const secret of [service.keyOf('cli'), service.keyOf('broke')]) {
        assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret));
      }
    }
  });
});

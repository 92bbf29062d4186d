import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { runCli, startLiveService } from '../client/live-service.js';

test('under a tight rate limit, batch --out still finishes and reports retries in one line, not one line each', { timeout: 180_000 }, async () => {
  // Reads have their own bucket (PRESEND_RESULTS_RATE_LIMIT_*): tight here too, so polling and pages meet 429s.
  const service = await startLiveService({ env: { PRESEND_RESULTS_RATE_LIMIT_PER_SECOND: '1', PRESEND_RESULTS_RATE_LIMIT_BURST: '1' }, accounts: [{ name: 'slowpoke', credits: 0, test: true }] });
  const dir = await mkdtemp(join(tmpdir(), 'presend-retries-'));
  try {
    const limited = await runCli(['accounts', 'rate-limit', 'slowpoke', '--per-second', '1', '--burst', '1'], service.adminEnv);
    assert.equal(limited.code, 0, limited.stderr);
    const input = join(dir, 'in.csv');
    // Polling every half second and three pages to download: more than one request a second.
    await writeFile(input, ['email', ...Array.from({ length: 450 }, (_, i) => `user${i}@example.com`)].join('\n') + '\n');
    const out = join(dir, 'out.csv');
    const env = { PRESEND_BASE_URL: service.baseUrl, PRESEND_API_KEY: service.keyOf('slowpoke') };
    const run = await runCli(['batch', input, '--out', out], env);
    assert.equal(run.code, 0, run.stderr);
    const retryLines = run.stderr.split('\n').filter((line) => /retrying/.test(line));
    assert.equal(retryLines.length, 1, `only the first retry as a line:\n${run.stderr}`);
    const summary = /^(\d+) retries, (\d+) of them rate limited, [\d.]+ s spent waiting$/m.exec(run.stderr);
    assert.ok(summary, `one summary line:\n${run.stderr}`);
    assert.ok(Number(summary[2]) >= 2, 'the run was rate limited more than once');
    const rows = parse(await readFile(out, 'utf8'), { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, 450);
  } finally {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

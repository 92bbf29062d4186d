import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../client/live-service.js';

// No service is needed: these are settled before any request is sent.
const env = { PRESEND_BASE_URL: 'http://127.0.0.1:1', PRESEND_API_KEY: 'ps_test.' + 'u'.repeat(40) };

describe('help and usage of the caller commands', () => {
  for (const command of ['verify', 'batch', 'job', 'results', 'mcp']) {
    test(`presend ${command} --help exits 0 and shows an example`, async () => {
      const run = await runCli([command, '--help'], {});
      assert.equal(run.code, 0);
      assert.match(run.stdout, new RegExp(`Usage: presend ${command}`));
      assert.match(run.stdout, /Example/);
    });
  }

  test('presend alone, or a command group without its subcommand, prints the help on stderr and exits 2', async () => {
    for (const args of [[], ['keys'], ['lists']]) {
      const run = await runCli(args, {});
      assert.equal(run.code, 2, `presend ${args.join(' ')}`);
      assert.match(run.stderr, /Usage: presend/);
      assert.equal(run.stdout, '');
    }
    assert.equal((await runCli(['--help'], {})).code, 0, 'asking for help is not a mistake');
  });

  test('batch without a file or --list-id exits 2', async () => {
    const run = await runCli(['batch'], env);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /give a FILE/);
  });

  test('an unknown output format exits 2', async () => {
    const run = await runCli(['results', '00000000-0000-4000-8000-000000000000', '--format', 'xml'], env);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--format must be one of csv, json, ndjson/);
  });

  test('a page size outside 1–200 exits 2', async () => {
    assert.equal((await runCli(['results', 'x', '--limit', '500'], env)).code, 2);
  });

  test('no API key exits 2 and says where to put one', async () => {
    const run = await runCli(['job', '00000000-0000-4000-8000-000000000000'], { ...env, PRESEND_API_KEY: '' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /PRESEND_API_KEY/);
  });
});

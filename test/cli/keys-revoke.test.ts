import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, startLiveService, type LiveService } from '../client/live-service.js';

describe('presend keys revoke asks before it revokes, and only within one account', () => {
  let service: LiveService;
  before(async () => {
    service = await startLiveService({
      accounts: [
        { name: 'north', credits: 0, test: true },
        { name: 'south', credits: 0, test: true },
      ],
    });
  });
  after(async () => {
    await service?.stop();
  });

  const status = async (key: string): Promise<number> =>
    (await fetch(`${service.baseUrl}/v1/requests/00000000-0000-4000-8000-000000000000`, { headers: { 'x-api-key': key } })).status;

  test('--account is required', async () => {
    const run = await runCli(['keys', 'revoke', 'ps_test.'], service.adminEnv);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--account/);
  });

  test('without a terminal and without --yes it lists the keys, refuses with exit 2, and revokes nothing', async () => {
    const key = service.keyOf('north');
    const run = await runCli(['keys', 'revoke', 'ps_test.', '--account', 'north'], service.adminEnv);
    assert.equal(run.code, 2);
    assert.match(run.stderr, new RegExp(`1 key of account "north" to revoke:\\n  ${key.slice(0, 14).replace('.', '\\.')}…`));
    assert.match(run.stderr, /not revoking without confirmation: .* pass --yes/);
    assert.equal(await status(key), 404, 'the key still works');
  });

  test('a prefix matching keys of two accounts revokes only the named account\'s, with --yes', async () => {
    const north = service.keyOf('north');
    const south = service.keyOf('south');
    const run = await runCli(['keys', 'revoke', 'ps_test.', '--account', 'south', '--yes', '--json'], service.adminEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { revoked: 1, keys: [south.slice(0, 14)] });
    assert.equal(await status(south), 401);
    assert.equal(await status(north), 404, "the other account's key is untouched");
  });

  test('a prefix of no key of the account says so and exits 1', async () => {
    const run = await runCli(['keys', 'revoke', 'ps_live.zzzzzz', '--account', 'north', '--yes'], service.adminEnv);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no active key of account "north" starts with ps_live\.zzzzzz/);
  });
});

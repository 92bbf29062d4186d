/** Last use of API keys: recorded from authentication lookups, at most once a minute per key, in the background. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBackend } from '../../src/store/open-backend.js';
import { KeyUsageRecorder } from '../../src/service/keys/key-usage.js';
import { createOwnerKey } from '../../src/service/keys/managed-keys.js';
import { hashApiKey } from '../../src/service/keys/key-format.js';

test('a key found by authentication is noted as used, at most once a minute, and written on flush', async () => {
  const backend = await openBackend('sqlite::memory:');
  try {
    const account = await backend.accounts.createAccount({ name: 'usage', credits: 0, now: new Date() });
    assert.ok(account);
    const made = await createOwnerKey(backend.keyManagement, { accountId: account.id, mode: 'test', label: null, actor: { name: 't' }, now: new Date() });
    let now = new Date('2032-01-01T00:00:00.000Z');
    const writes: number[] = [];
    const recorder = new KeyUsageRecorder(
      { noteKeyUse: async (uses) => { writes.push(uses.length); await backend.keyManagement.noteKeyUse(uses); } },
      () => now,
    );
    const accounts = recorder.wrap(backend.accounts);
    assert.equal(await accounts.findActiveKey(hashApiKey('ps_test.' + 'x'.repeat(40))), null);
    await accounts.findActiveKey(hashApiKey(made.key));
    now = new Date(now.getTime() + 30_000);
    await accounts.findActiveKey(hashApiKey(made.key));
    await recorder.flush();
    assert.equal((await backend.keyManagement.getKey(account.id, made.record.id))?.lastUsedAt, '2032-01-01T00:00:00.000Z', 'the first use in the minute');
    now = new Date(now.getTime() + 60_000);
    await accounts.findActiveKey(hashApiKey(made.key));
    await recorder.close();
    assert.equal((await backend.keyManagement.getKey(account.id, made.record.id))?.lastUsedAt, '2032-01-01T00:01:30.000Z');
    assert.deepEqual(writes, [1, 1], 'one write per flush with uses; an unknown key is never noted');
  } finally {
    await backend.close();
  }
});

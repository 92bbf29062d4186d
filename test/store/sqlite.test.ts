import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openStore } from '../../src/store/open-store.js';
import { runStoreContract } from './contract.js';

runStoreContract('sqlite in memory', () => openStore('sqlite::memory:'));

const dir = mkdtempSync(join(tmpdir(), 'presend-store-'));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
runStoreContract('sqlite file', () => openStore(`sqlite:${join(dir, 'store.db')}`));

test('a key revoked by another process on the same file stops working at once, though lookups are cached', async () => {
  const url = `sqlite:${join(dir, 'two-processes.db')}`;
  const server = await openStore(url);
  await server.migrate();
  const admin = await openStore(url); // what `presend keys revoke` opens in its own process
  try {
    const now = new Date();
    const account = await server.createAccount({ name: 'cached', credits: 0, now });
    assert.ok(account);
    await server.createApiKey({ accountId: account.id, hash: 'h-cached', displayPrefix: 'ps_live.cached', mode: 'live', now });
    assert.equal((await server.findActiveKey('h-cached'))?.accountId, account.id);
    assert.equal((await server.findActiveKey('h-cached'))?.accountId, account.id, 'served again (from the cache)');
    assert.equal(await admin.revokeApiKeys('ps_live.cached', now), 1);
    assert.equal(await server.findActiveKey('h-cached'), null);
    // A rate limit set elsewhere is seen on the next lookup as well.
    await admin.createApiKey({ accountId: account.id, hash: 'h-second', displayPrefix: 'ps_live.second', mode: 'live', now });
    assert.equal((await server.findActiveKey('h-second'))?.rateLimitBurst, null);
    await admin.setAccountRateLimit(account.id, 3, 7);
    assert.equal((await server.findActiveKey('h-second'))?.rateLimitBurst, 7);
  } finally {
    await admin.close();
    await server.close();
  }
});

/**
 * The batch runner and its leases, on a real SQLite backend with the sandbox engine: a runner
 * whose lease was taken over by another worker is told so at its next renewal and stops that
 * item — it writes no result for it, says so in its log, and goes on with other work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createSandboxEngine } from '../../src/core/index.js';
import { createLogger } from '../../src/logger.js';
import { BatchRunner } from '../../src/service/batches/batch-runner.js';
import { openBackend } from '../../src/store/open-backend.js';
import { until } from '../until.js';

test('a runner whose lease another worker took over stops the item and writes no result for it', async () => {
  const backend = await openBackend('sqlite::memory:');
  const lines: Array<{ msg: string; lost?: number }> = [];
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { msg: string; lost?: number });
      done();
    },
  });
  // `slow@` keeps the item in the engine far longer than the test.
  const sandbox = createSandboxEngine(undefined, { slowDelayMs: 600_000 });
  const runner = new BatchRunner({
    work: backend.work,
    leases: backend.leases,
    batches: backend.batches,
    policies: backend.policies,
    engines: { live: sandbox, sandbox },
    log: createLogger('warn', logs),
    recheckDelayMs: 1_000,
    sandboxRecheckDelayMs: 1_000,
    retentionDays: 30,
    chunkSize: 10,
    parallelChunks: 1,
    affinityGraceMs: null,
    leaseMs: 300,
    pollMs: 20,
    affinity: 'slow-runner',
  });
  try {
    const account = await backend.accounts.createAccount({ name: 'leases', credits: 5, now: new Date() });
    assert.ok(account);
    const created = await backend.batches.create({
      accountId: account.id,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: 1,
      items: [{ email: 'slow@leases.example', domain: 'leases.example' }],
      billable: false,
      idempotency: { route: 'POST /v1/requests', key: 'leases', bodyHash: 'b', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
      now: new Date(),
      retentionDays: 30,
    });
    assert.equal(created.kind, 'created');
    if (created.kind !== 'created') return;
    runner.start();
    await until('the runner claims the item', async () => (await backend.batches.get(account.id, created.request.id))?.state === 'running');
    // Another worker, whose clock is past the runner's lease, takes the item over.
    const [taken] = await backend.work.claim({ owner: 'other#1', affinity: 'other', now: new Date(Date.now() + 60_000), leaseMs: 600_000, limit: 10, affinityGraceMs: 0 });
    assert.ok(taken, 'taken over');
    await until('the runner hears that it lost the lease', () => lines.some((l) => l.msg.startsWith('leases lost') && l.lost === 1));
    // Its only chunk was that item: it stopped probing it (a 600 s check) and takes new work at once.
    const next = await backend.batches.create({
      accountId: account.id,
      keyId: 'k',
      mode: 'emails',
      listId: null,
      total: 1,
      items: [{ email: 'deliverable@leases.example', domain: 'leases.example' }],
      billable: false,
      idempotency: { route: 'POST /v1/requests', key: 'leases-2', bodyHash: 'b', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
      now: new Date(),
      retentionDays: 30,
    });
    assert.equal(next.kind, 'created');
    if (next.kind !== 'created') return;
    await backend.work.publish(next.request.id);
    await until('the runner finishes the next batch', async () => (await backend.batches.get(account.id, next.request.id))?.state === 'completed');
    await runner.stop();
    assert.deepEqual(await backend.leases.renew('item', 'other#1', [taken.itemId], new Date(Date.now() + 600_000)), [], 'still the other worker’s: not handed back, not finished');
    const view = await backend.batches.get(account.id, created.request.id);
    assert.deepEqual([view?.counters.pending, view?.counters.completed], [1, 0], 'no result written by the runner that lost it');
  } finally {
    await runner.stop();
    await sandbox.close();
    await backend.close();
  }
});

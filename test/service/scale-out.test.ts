/**
 * Scale-out on one store (docs/design.md §1): `presend serve --no-worker` takes the batch and a
 * separate `presend worker` process on the same SQLite file verifies it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackend } from '../../src/store/open-backend.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { exited, spawnCli, startServe, waitForLog } from './processes.js';
import { until } from '../until.js';

test('a batch taken by serve --no-worker is completed by a separate worker process', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presend-scale-'));
  const children: ChildProcess[] = [];
  try {
    const databaseUrl = `sqlite:${join(dir, 'presend.db')}`;
    const setup = await openBackend(databaseUrl);
    const account = await setup.accounts.createAccount({ name: 'scale', credits: 0, now: new Date() });
    assert.ok(account);
    const key = generateApiKey('test');
    await setup.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: key.hash, displayPrefix: key.displayPrefix, mode: 'test', now: new Date() });
    await setup.close();
    const env = { PRESEND_DATABASE_URL: databaseUrl, PRESEND_PORT: '0', PRESEND_WORKER_POLL_MS: '50' };

    const api = await startServe(env, ['--no-worker']);
    children.push(api.child);
    const emails = Array.from({ length: 300 }, (_, i) => `${i % 2 ? 'deliverable' : 'undeliverable'}+${i}@scale.example`);
    const headers = { 'x-api-key': key.key, 'content-type': 'application/json', 'idempotency-key': 'scale-1' };
    const created = await fetch(`${api.url}/v1/requests`, { method: 'POST', headers, body: JSON.stringify({ emails }) }).then((r) => r.json() as Promise<any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    const id = created.request.id as string;
    // Kept: an absence (no worker picks the batch up) can only be watched over a window of time.
    await new Promise((r) => setTimeout(r, 300));
    const idle = await fetch(`${api.url}/v1/requests/${id}`, { headers }).then((r) => r.json() as Promise<any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(idle.request.state, 'queued', 'no worker runs inside serve --no-worker');

    const worker = spawnCli(['worker'], env);
    children.push(worker);
    await waitForLog(worker, 'presend worker running');
    const s = await until('the worker completes the batch', async () => {
      const status = await fetch(`${api.url}/v1/requests/${id}`, { headers }).then((r) => r.json() as Promise<any>); // eslint-disable-line @typescript-eslint/no-explicit-any
      return status.request.state === 'completed' ? status : null;
    }, 60_000, 50);
    assert.equal(s.counters.send, 150);
    assert.equal(s.counters.suppress, 150);
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map(exited));
    assert.deepEqual(children.map((c) => c.exitCode), [0, 0], 'both shut down cleanly on SIGTERM');
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    rmSync(dir, { recursive: true, force: true });
  }
});

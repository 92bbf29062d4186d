/**
 * Webhooks sent by `presend worker`, on PostgreSQL with separate processes: an API node takes a
 * batch and is SIGKILLed at once (its sender, polling once an hour, never looked again after
 * its start), so no `presend serve` sends anything; the worker process runs the batch, its
 * finalization writes `batch.completed` in the outbox, and the worker's own sender delivers it,
 * verified by the `standardwebhooks` package. Scale-out (N API nodes, M workers) announces batches
 * even where every API node is gone or sends nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase } from '../backends.js';
import { startApiNode, startWorker } from './presend-process.js';
import type { PresendProcess } from './presend-process.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { addEndpoint } from '../../src/service/webhooks/endpoints.js';
import { startReceiver } from '../webhooks/receiver.js';
import type { Receiver } from '../webhooks/receiver.js';
import { until } from '../until.js';

const fresh = await freshDatabase();
const skip = fresh.kind === 'skip' ? fresh.reason : false;

let store: Backend | undefined;
let receiver: Receiver | undefined;
const processes: PresendProcess[] = [];

before(async () => {
  if (fresh.kind !== 'ready') return;
  receiver = await startReceiver();
  store = await openBackend(fresh.db.url);
});
after(async () => {
  await Promise.allSettled(processes.map((p) => p.kill()));
  await store?.close();
  await receiver?.close();
  if (fresh.kind === 'ready') await fresh.db.drop();
});

test('a batch finished by a worker process is announced by that worker, with no serving node sending', { skip }, async () => {
  assert.ok(fresh.kind === 'ready' && store && receiver);
  const env: Record<string, string> = {
    PRESEND_DATABASE_URL: fresh.db.url,
    PRESEND_ALLOW_PRIVATE_WEBHOOKS: 'loopback',
    PRESEND_WORKER_POLL_MS: '50',
    PRESEND_DATABASE_POOL_SIZE: '3',
    PRESEND_SHARED_POOL_SIZE: '2',
    PRESEND_LOG_LEVEL: 'warn',
  };
  const account = await store.accounts.createAccount({ name: 'hooks', credits: 0, now: new Date() });
  assert.ok(account);
  const key = generateApiKey('test');
  await store.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: key.hash, displayPrefix: key.displayPrefix, mode: 'test', now: new Date() });
  const added = await addEndpoint(store.webhooks, { accountId: account.id, url: `${receiver.url}/hooks`, events: ['batch.completed'], description: null, allowPrivate: 'loopback', now: new Date() });
  assert.ok(added.kind === 'done');
  const { endpoint, secret } = added.value;

  // The API node's sender claims once as it starts (nothing is due yet), then would wait an hour.
  const api = await startApiNode('api', { ...env, PRESEND_WEBHOOK_POLL_MS: '3600000' });
  processes.push(api.proc);
  const created = await fetch(`${api.url}/v1/requests`, {
    method: 'POST',
    headers: { 'x-api-key': key.key, 'idempotency-key': 'worker-sends-1', 'content-type': 'application/json' },
    body: JSON.stringify({ emails: ['deliverable@example.com', 'role@example.com'] }),
  });
  assert.equal(created.status, 202);
  const requestId = ((await created.json()) as { request: { id: string } }).request.id;
  await api.proc.kill();

  const worker = await startWorker('worker', { ...env, PRESEND_WEBHOOK_POLL_MS: '50' });
  processes.push(worker);
  const got = await receiver.waitFor((r) => r.payload.data.requestId === requestId, 60_000);
  assert.equal(got.payload.type, 'batch.completed');
  assert.deepEqual(receiver.verifiedBy(got, [secret]), [secret]);
  const delivered = await until('the delivery is recorded delivered', async () => {
    const [d] = await store!.webhooks.deliveries(account.id, endpoint.id, 1);
    return d?.state === 'delivered' ? d : null;
  });
  assert.equal(delivered.attempts, 1);
  assert.equal(delivered.eventId, got.id);
  await worker.stop();
});

/**
 * Webhooks sent by `presend worker`, on PostgreSQL with separate processes: an API node takes a
 * batch and is SIGKILLed at once (its sender, polling once an hour, never looked again after
 * its start), so no `presend serve` sends anything; the worker process runs the batch, its
 * finalization writes `batch.completed` in the outbox, and the worker's own sender delivers it,
 * verified by the `standardwebhooks` package. Scale-out (N API nodes, M workers) announces batches
 * even where every API node is gone or sends nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiNode, startWorker } from './presend-process.js';
import { accountWithEndpoint, webhookScale } from './webhook-scale.js';
import { until } from '../until.js';

const scale = await webhookScale();
const { skip, processes } = scale;

test('a batch finished by a worker process is announced by that worker, with no serving node sending', { skip }, async () => {
  const { store, receiver } = scale;
  assert.ok(store && receiver);
  const env = { ...scale.env };
  const { account, key, endpoint, secret } = await accountWithEndpoint(store, receiver, ['batch.completed']);

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
    const [d] = await store.webhooks.deliveries(account.id, endpoint.id, 1);
    return d?.state === 'delivered' ? d : null;
  });
  assert.equal(delivered.attempts, 1);
  assert.equal(delivered.eventId, got.id);
  await worker.stop();
});

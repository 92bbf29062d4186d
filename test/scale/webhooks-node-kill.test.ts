/**
 * Webhooks across a node kill, on PostgreSQL with separate processes: a batch announced while
 * node A is attempting its delivery (the receiver holds the answer back), A is SIGKILLed, and node
 * B takes the delivery over once A's lease lapses and delivers it — the same event, the same
 * `webhook-id`, verified by the `standardwebhooks` package. Nothing is lost, and the receiver
 * de-duplicates on the id it saw twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiNode, startWorker } from './presend-process.js';
import { accountWithEndpoint, webhookScale } from './webhook-scale.js';
import { until } from '../until.js';

const scale = await webhookScale();
const { skip, processes } = scale;

test('a delivery whose node is killed mid-attempt is delivered by the other node, with the same webhook-id', { skip }, async () => {
  const { store, receiver } = scale;
  assert.ok(store && receiver);
  const env = {
    ...scale.env,
    PRESEND_WEBHOOK_POLL_MS: '50',
    // An attempt's deadline; a delivery's lease is twice that, so B takes over within seconds.
    PRESEND_WEBHOOK_TIMEOUT_MS: '2500',
  };
  const { account, key, endpoint, secret } = await accountWithEndpoint(store, receiver, []);

  // Node A (API and webhook sender) and a batch worker; node B comes only after A is gone.
  let release = (): void => undefined;
  receiver.hold = new Promise<void>((resolve) => (release = resolve));
  // The worker sends webhooks too (every process does); here it polls only once an hour, so the
  // delivery is node A's, the one killed.
  const [a, worker] = await Promise.all([startApiNode('node-a', env), startWorker('worker', { ...env, PRESEND_WEBHOOK_POLL_MS: '3600000' })]);
  processes.push(a.proc, worker);
  const created = await fetch(`${a.url}/v1/requests`, {
    method: 'POST',
    headers: { 'x-api-key': key.key, 'idempotency-key': 'node-kill-1', 'content-type': 'application/json' },
    body: JSON.stringify({ emails: ['deliverable@example.com', 'role@example.com'] }),
  });
  assert.equal(created.status, 202);
  const requestId = ((await created.json()) as { request: { id: string } }).request.id;

  const first = await receiver.waitFor((r) => r.payload.data.requestId === requestId, 60_000);
  const [held] = await store.webhooks.deliveries(account.id, endpoint.id, 1);
  assert.equal(held?.state, 'sending', 'node A holds the delivery while the receiver holds its answer');
  await a.proc.kill();
  receiver.hold = null;
  release();

  const b = await startApiNode('node-b', env);
  processes.push(b.proc);
  const second = await receiver.waitFor((r) => r !== first && r.id === first.id, 60_000);
  assert.deepEqual(receiver.verifiedBy(first, [secret]), [secret]);
  assert.deepEqual(receiver.verifiedBy(second, [secret]), [secret]);
  assert.equal(second.body, first.body, 'the same event, byte for byte');

  const delivered = await until('the delivery is delivered', async () => {
    const [d] = await store.webhooks.deliveries(account.id, endpoint.id, 1);
    return d?.state === 'delivered' ? d : null;
  });
  assert.equal(delivered.attempts, 2, "A's attempt and B's");
  assert.equal(delivered.eventId, first.id);
  assert.equal(receiver.received.filter((r) => r.payload.data.requestId === requestId).length, 2, 'delivered at least once, here twice: no more');
});

/**
 * Signed webhooks end to end, on SQLite and on PostgreSQL: a real server sends what a batch's end
 * and a 202'd check's completion announce to a receiver on loopback that verifies every request
 * with the independent `standardwebhooks` package; a rotation signs with both secrets; a 410
 * disables the endpoint; "send again" repeats the same `webhook-id`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeOnEveryBackend } from '../backends.js';
import { newIdem, startHarness, waitFinal } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { addEndpoint, rotateEndpointSecret } from '../../src/service/webhooks/endpoints.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';
import { until } from '../until.js';

describeOnEveryBackend('signed webhooks', (backend) => {
  let h: Harness;
  let receiver: Receiver;
  before(async () => {
    h = await startHarness({ backend, env: { PRESEND_ALLOW_PRIVATE_WEBHOOKS: 'loopback', PRESEND_WEBHOOK_POLL_MS: '20', PRESEND_SANDBOX_RECHECK_DELAY_MS: '10' } });
    receiver = await startReceiver();
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });

  async function endpointFor(accountId: string, path: string, events: string[] = []) {
    const added = await addEndpoint(h.backend.webhooks, { accountId, url: `${receiver.url}${path}`, events, description: null, allowPrivate: 'loopback', now: new Date() });
    assert.equal(added.kind, 'done');
    return added.kind === 'done' ? added.value : assert.fail();
  }

  test('a finished sandbox batch is announced by batch.completed, signed so that standardwebhooks verifies it, with links that read its results', async () => {
    const acct = await h.newAccount(0);
    const { secret } = await endpointFor(acct.accountId, '/batches', ['batch.completed']);
    const created = await h.call('POST', '/v1/requests', { key: acct.test, idem: newIdem(), body: { emails: ['deliverable@example.com', 'undeliverable@example.com', 'deliverable@example.com'] } });
    assert.equal(created.status, 202);
    const id = created.body.request.id as string;
    await waitFinal(h, acct.test, id);
    const got = await receiver.waitFor((r) => r.payload.data.requestId === id);
    assert.deepEqual(receiver.verifiedBy(got, [secret]), [secret]);
    assert.match(got.id, /^msg_[0-9a-f]{32}$/);
    assert.equal(got.payload.type, 'batch.completed');
    assert.equal(got.headers['content-type'], 'application/json');
    const data = got.payload.data as { sandbox: boolean; counters: Record<string, number>; links: { request: string; results: string }; finalization: { results: number } };
    assert.equal(data.sandbox, true);
    assert.deepEqual(data.counters, { total: 3, unique: 2, completed: 2, failed: 0 });
    assert.equal(data.finalization.results, 2);
    const results = await h.call('GET', data.links.results, { key: acct.test });
    assert.equal(results.status, 200);
    assert.equal(results.body.results.length, 2);
    assert.equal((await h.call('GET', data.links.request, { key: acct.test })).body.request.state, 'completed');
    const metrics = await h.call('GET', '/metrics');
    assert.match(String(metrics.body), /^presend_webhook_attempts_total\{outcome="delivered"\} [1-9]/m);
  });

  test('a check answered 202 is announced by verification.completed with its final envelope, keyed by the engineJobId and requestId of the 202', async () => {
    const acct = await h.newAccount(0);
    const { secret } = await endpointFor(acct.accountId, '/checks', ['verification.completed']);
    const idem = newIdem();
    const answered = await h.call('POST', '/v1/verify', { key: acct.test, idem, body: { email: 'slow@example.com', timeoutMs: 100 } });
    assert.equal(answered.status, 202);
    const jobId = answered.body.engineJobId as string;
    const got = await receiver.waitFor((r) => r.payload.data.engineJobId === jobId);
    assert.deepEqual(receiver.verifiedBy(got, [secret]), [secret]);
    assert.equal(got.payload.type, 'verification.completed');
    const data = got.payload.data as { requestId: string; email: string; status: string; presend: { status: string; verdict: string | null } };
    assert.equal(data.requestId, answered.body.requestId, 'the requestId the 202 carried');
    assert.equal(data.email, 'slow@example.com');
    assert.equal(data.status, 'completed');
    assert.equal(data.presend.status, 'completed');
    // The very result a replay of the 202 now reads.
    const replay = await h.call('POST', '/v1/verify', { key: acct.test, idem, body: { email: 'slow@example.com', timeoutMs: 100 } });
    assert.equal(replay.status, 200);
    assert.deepEqual(data.presend, replay.body.presend);
  });

  test('a check answered 202 that then fails is announced by verification.failed, keyed like the 202, and nothing is billed', async () => {
    const acct = await h.newAccount(1);
    const { secret } = await endpointFor(acct.accountId, '/failed-checks', ['verification.completed', 'verification.failed']);
    const idem = newIdem();
    const answered = await h.call('POST', '/v1/verify', { key: acct.live, idem, body: { email: 'latecrash@example.com', timeoutMs: 100 } });
    assert.equal(answered.status, 202);
    const jobId = answered.body.engineJobId as string;
    const got = await receiver.waitFor((r) => r.payload.data.engineJobId === jobId);
    assert.deepEqual(receiver.verifiedBy(got, [secret]), [secret]);
    assert.equal(got.payload.type, 'verification.failed');
    assert.deepEqual(got.payload.data, { engineJobId: jobId, requestId: answered.body.requestId, email: 'latecrash@example.com', sandbox: false, status: 'failed', errorCode: 'engine_unavailable' });
    // What a replay of the 202 now answers, and what it cost.
    const replay = await h.call('POST', '/v1/verify', { key: acct.live, idem, body: { email: 'latecrash@example.com', timeoutMs: 100 } });
    assert.equal(replay.status, 502);
    assert.equal(replay.body.error.code, 'engine_unavailable');
    assert.equal((await h.backend.ledger.getBalance(acct.accountId)).available, 1);
  });

  test('a check answered at once (200) raises no event: its caller already has the result', async () => {
    const acct = await h.newAccount(0);
    const { endpoint } = await endpointFor(acct.accountId, '/quick', ['verification.completed', 'batch.completed']);
    const answered = await h.call('POST', '/v1/verify', { key: acct.test, idem: newIdem(), body: { email: 'deliverable@example.com' } });
    assert.equal(answered.status, 200);
    // A batch after it: once its event is delivered, an event of the check would have been too (both are due at once).
    const created = await h.call('POST', '/v1/requests', { key: acct.test, idem: newIdem(), body: { emails: ['role@example.com'] } });
    await receiver.waitFor((r) => r.payload.data.requestId === created.body.request.id);
    const log = await h.backend.webhooks.deliveries(acct.accountId, endpoint.id, 10);
    assert.deepEqual(log.map((d) => d.eventType), ['batch.completed']);
  });

  test('after a rotation each delivery carries two signatures, and a receiver holding either secret verifies it', async () => {
    const acct = await h.newAccount(0);
    const { endpoint, secret: old } = await endpointFor(acct.accountId, '/rotated', ['batch.completed']);
    const rotated = await rotateEndpointSecret(h.backend.webhooks, { accountId: acct.accountId, endpointId: endpoint.id, now: new Date() });
    assert.equal(rotated.kind, 'done');
    const fresh = rotated.kind === 'done' ? rotated.value.secret : '';
    assert.notEqual(fresh, old);
    const created = await h.call('POST', '/v1/requests', { key: acct.test, idem: newIdem(), body: { emails: ['deliverable@example.com'] } });
    const got = await receiver.waitFor((r) => r.payload.data.requestId === created.body.request.id);
    assert.equal(got.signature.split(' ').length, 2);
    assert.deepEqual(receiver.verifiedBy(got, [old, fresh]), [old, fresh]);
  });

  test('an endpoint answering 410 Gone is disabled, and later events are not sent to it', async () => {
    const acct = await h.newAccount(0);
    const { endpoint } = await endpointFor(acct.accountId, '/gone', ['batch.completed']);
    receiver.answer = (r) => (r.path === '/gone' ? 410 : 200);
    const first = await h.call('POST', '/v1/requests', { key: acct.test, idem: newIdem(), body: { emails: ['deliverable@example.com'] } });
    await receiver.waitFor((r) => r.payload.data.requestId === first.body.request.id);
    const disabled = await until('the endpoint is disabled', async () => {
      const e = await h.backend.webhooks.getEndpoint(acct.accountId, endpoint.id);
      return e?.disabledAt ? e : null;
    });
    assert.equal(disabled.disabledReason, 'answered 410 Gone');
    const second = await h.call('POST', '/v1/requests', { key: acct.test, idem: newIdem(), body: { emails: ['role@example.com'] } });
    await waitFinal(h, acct.test, second.body.request.id as string);
    const log = await h.backend.webhooks.deliveries(acct.accountId, endpoint.id, 10);
    assert.equal(log.length, 1, 'only the event before the 410 has a delivery');
    assert.equal(log[0]?.state, 'failed');
    assert.equal(log[0]?.lastStatus, 410);
    receiver.answer = 200;
  });

  test('send again repeats a delivered event with the same webhook-id', async () => {
    const acct = await h.newAccount(0);
    const { endpoint, secret } = await endpointFor(acct.accountId, '/again', ['batch.completed']);
    const created = await h.call('POST', '/v1/requests', { key: acct.test, idem: newIdem(), body: { emails: ['deliverable@example.com'] } });
    const first = await receiver.waitFor((r) => r.payload.data.requestId === created.body.request.id);
    const delivered = await until('the delivery is delivered', async () => (await h.backend.webhooks.deliveries(acct.accountId, endpoint.id, 1)).find((d) => d.state === 'delivered') ?? null);
    const again = await h.backend.webhooks.resend({ accountId: acct.accountId, deliveryId: delivered.id, now: new Date() });
    assert.equal(again?.state, 'pending');
    await receiver.waitFor((r) => r !== first && r.id === first.id);
    assert.equal(receiver.received.filter((r) => r.id === first.id).every((r) => receiver.verifiedBy(r, [secret]).length === 1), true);
    // Another account cannot send it again.
    const other = await h.newAccount(0);
    assert.equal(await h.backend.webhooks.resend({ accountId: other.accountId, deliveryId: delivered.id, now: new Date() }), null);
  });
});

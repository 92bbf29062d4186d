/**
 * The webhooks role on SQLite and on PostgreSQL: two senders claiming at once take disjoint
 * deliveries; only the lease's owner writes an outcome, and a lapsed lease passes to another
 * sender; the secret before a rotation signs only until its grace period ends; endpoints are the
 * account's own; retention deletes only what has ended.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeOnEveryBackend } from '../backends.js';
import { openDatabase } from '../backends.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { defaultConfig } from '../../src/config.js';
import { createSandboxEngine } from '../../src/core/index.js';
import { idempotencyClaim } from '../../src/service/checks/idempotency.js';
import { toStoredResult } from '../../src/store/stored-result.js';

describeOnEveryBackend('the webhooks role', (kind) => {
  let backend: Backend;
  let drop = async (): Promise<void> => undefined;
  before(async () => {
    const db = await openDatabase(kind);
    const url = db.url;
    drop = db.drop;
    backend = await openBackend(url, { config: defaultConfig({ databaseUrl: url }) });
  });
  after(async () => {
    await backend.close();
    await drop();
  });

  let n = 0;
  async function endpoint(now: Date) {
    const account = await backend.accounts.createAccount({ name: `store-${++n}`, credits: 0, now });
    assert.ok(account);
    const e = await backend.webhooks.createEndpoint({ accountId: account.id, url: 'https://hooks.example.com/x', events: ['batch.completed'], description: null, secret: 'whsec_AAAA', now });
    return { accountId: account.id, endpointId: e.id };
  }

  test('two senders claiming at once take disjoint deliveries, and each claim counts an attempt', async () => {
    const t = new Date('2026-02-01T00:00:00Z');
    const { accountId, endpointId } = await endpoint(t);
    for (let i = 0; i < 12; i++) await backend.webhooks.sendTest({ accountId, endpointId, now: t });
    const lease = new Date(t.getTime() + 30_000);
    const [a, b] = await Promise.all([
      backend.webhooks.claimDue({ owner: 'a', now: t, leaseUntil: lease, limit: 8 }),
      backend.webhooks.claimDue({ owner: 'b', now: t, leaseUntil: lease, limit: 8 }),
    ]);
    const ids = [...a, ...b].map((d) => d.id);
    assert.equal(ids.length, 12);
    assert.equal(new Set(ids).size, 12, 'no delivery went to both');
    assert.ok([...a, ...b].every((d) => d.attempts === 0));
    for (const d of a) assert.equal(await backend.webhooks.recordOutcome({ deliveryId: d.id, owner: 'a', outcome: { kind: 'delivered', status: 204 }, now: t }), true);
    for (const d of b) assert.equal(await backend.webhooks.recordOutcome({ deliveryId: d.id, owner: 'b', outcome: { kind: 'delivered', status: 200 }, now: t }), true);
  });

  test('only the lease owner records an outcome; a lapsed lease passes to another sender, whose outcome stands', async () => {
    const t = new Date('2026-02-02T00:00:00Z');
    const { accountId, endpointId } = await endpoint(t);
    await backend.webhooks.sendTest({ accountId, endpointId, now: t });
    const [held] = await backend.webhooks.claimDue({ owner: 'dead', now: t, leaseUntil: new Date(t.getTime() + 10_000), limit: 1 });
    assert.ok(held);
    assert.equal(await backend.webhooks.recordOutcome({ deliveryId: held.id, owner: 'stranger', outcome: { kind: 'delivered', status: 200 }, now: t }), false);
    assert.deepEqual(await backend.webhooks.claimDue({ owner: 'live', now: new Date(t.getTime() + 9_999), leaseUntil: new Date(t.getTime() + 20_000), limit: 5 }), [], 'not while the lease runs');
    const [taken] = await backend.webhooks.claimDue({ owner: 'live', now: new Date(t.getTime() + 10_001), leaseUntil: new Date(t.getTime() + 20_000), limit: 5 });
    assert.equal(taken?.id, held.id);
    assert.equal(taken?.attempts, 1, "the dead sender's attempt counts");
    assert.equal(await backend.webhooks.recordOutcome({ deliveryId: held.id, owner: 'dead', outcome: { kind: 'gone', status: 410 }, now: t }), false, 'a late outcome of the dead sender is refused');
    assert.equal(await backend.webhooks.recordOutcome({ deliveryId: held.id, owner: 'live', outcome: { kind: 'delivered', status: 200 }, now: t }), true);
    const [d] = await backend.webhooks.deliveries(accountId, endpointId, 1);
    assert.equal(d?.state, 'delivered');
    assert.equal(d?.attempts, 2);
    assert.equal((await backend.webhooks.getEndpoint(accountId, endpointId))?.disabledAt, null);
  });

  test('the secret before a rotation signs until its grace period ends, then only the new one', async () => {
    const t = new Date('2026-02-03T00:00:00Z');
    const { accountId, endpointId } = await endpoint(t);
    const rotated = await backend.webhooks.rotateSecret({ accountId, endpointId, secret: 'whsec_BBBB', graceUntil: new Date(t.getTime() + 60_000), now: t });
    assert.equal(rotated?.previousSecretExpiresAt, new Date(t.getTime() + 60_000).toISOString());
    await backend.webhooks.sendTest({ accountId, endpointId, now: t });
    await backend.webhooks.sendTest({ accountId, endpointId, now: t });
    const lease = (at: Date) => new Date(at.getTime() + 1_000);
    const [during] = await backend.webhooks.claimDue({ owner: 'o', now: new Date(t.getTime() + 59_999), leaseUntil: lease(t), limit: 1 });
    assert.deepEqual(during?.secrets, { current: 'whsec_BBBB', previous: 'whsec_AAAA' });
    const later = new Date(t.getTime() + 60_000);
    const [afterwards] = await backend.webhooks.claimDue({ owner: 'o', now: later, leaseUntil: lease(later), limit: 1 });
    assert.deepEqual(afterwards?.secrets, { current: 'whsec_BBBB', previous: null });
  });

  test("an account reaches only its own endpoints and deliveries", async () => {
    const t = new Date('2026-02-04T00:00:00Z');
    const mine = await endpoint(t);
    const other = await endpoint(t);
    const delivery = await backend.webhooks.sendTest({ accountId: mine.accountId, endpointId: mine.endpointId, now: t });
    assert.ok(delivery);
    assert.equal(await backend.webhooks.getEndpoint(other.accountId, mine.endpointId), null);
    assert.equal(await backend.webhooks.sendTest({ accountId: other.accountId, endpointId: mine.endpointId, now: t }), null);
    assert.equal(await backend.webhooks.rotateSecret({ accountId: other.accountId, endpointId: mine.endpointId, secret: 'whsec_CCCC', graceUntil: t, now: t }), null);
    assert.deepEqual(await backend.webhooks.deliveries(other.accountId, mine.endpointId, 10), []);
    assert.equal(await backend.webhooks.deleteEndpoint(other.accountId, mine.endpointId), false);
    assert.equal(await backend.webhooks.deleteEndpoint(mine.accountId, mine.endpointId), true);
    assert.deepEqual(await backend.webhooks.listEndpoints(mine.accountId), []);
  });

  test('a check that completes before its caller is told 202 is announced when the 202 is decided; one that is never told 202 is not', async () => {
    const t = new Date('2026-02-06T00:00:00Z');
    const account = await backend.accounts.createAccount({ name: `store-${++n}`, credits: 0, now: t });
    assert.ok(account);
    const e = await backend.webhooks.createEndpoint({ accountId: account.id, url: 'https://hooks.example.com/x', events: ['verification.completed'], description: null, secret: 'whsec_AAAA', now: t });
    const result = toStoredResult(await createSandboxEngine().verify('deliverable@example.com'));
    const check = async (idem: string) => {
      const started = await backend.verifications.start({
        accountId: account.id,
        keyId: 'k',
        email: 'deliverable@example.com',
        billable: false,
        idempotency: idempotencyClaim('POST /v1/verify', 'test', idem, { email: 'deliverable@example.com' }, t),
        now: t,
        lease: { owner: 'test#1', until: new Date(t.getTime() + 60_000) },
      });
      assert.equal(started.kind, 'created');
      return started.kind === 'created' ? started.verification.id : '';
    };
    // Completed first, then its caller's wait ended: the 202 is announced by markResumable.
    const raced = await check('raced');
    await backend.verifications.complete({ verificationId: raced, result, now: t });
    assert.deepEqual(await backend.webhooks.deliveries(account.id, e.id, 10), [], 'a check answered 200 is not announced');
    await backend.verifications.markResumable(raced, 'req-first-202');
    await backend.verifications.markResumable(raced, 'req-replayed-202');
    const announced = await backend.webhooks.deliveries(account.id, e.id, 10);
    assert.equal(announced.length, 1, 'announced once');
    assert.equal(announced[0]?.eventType, 'verification.completed');
    // markResumable takes no clock: its event is due at the real time.
    const soon = new Date(Date.now() + 1_000);
    const [sent] = (await backend.webhooks.claimDue({ owner: 'o', now: soon, leaseUntil: soon, limit: 100 })).filter((d) => d.endpointId === e.id);
    assert.deepEqual(JSON.parse(sent?.payload ?? '{}').data.requestId, 'req-first-202');
    // The usual order: told 202, then completed.
    const usual = await check('usual');
    await backend.verifications.markResumable(usual);
    assert.equal((await backend.webhooks.deliveries(account.id, e.id, 10)).length, 1);
    await backend.verifications.complete({ verificationId: usual, result, now: t });
    assert.equal((await backend.webhooks.deliveries(account.id, e.id, 10)).length, 2);
  });

  test('a check told 202 that ends failed is announced by verification.failed, also when it failed before the 202 was decided; one never told 202 is not', async () => {
    const t = new Date('2026-02-07T00:00:00Z');
    const account = await backend.accounts.createAccount({ name: `store-${++n}`, credits: 0, now: t });
    assert.ok(account);
    const e = await backend.webhooks.createEndpoint({ accountId: account.id, url: 'https://hooks.example.com/x', events: ['verification.failed'], description: null, secret: 'whsec_AAAA', now: t });
    const check = async (idem: string) => {
      const started = await backend.verifications.start({
        accountId: account.id,
        keyId: 'k',
        email: 'failing@example.com',
        billable: false,
        idempotency: idempotencyClaim('POST /v1/verify', 'test', idem, { email: 'failing@example.com' }, t),
        now: t,
        lease: { owner: 'test#1', until: new Date(t.getTime() + 60_000) },
      });
      assert.equal(started.kind, 'created');
      return started.kind === 'created' ? started.verification.id : '';
    };
    const never = await check('never-told');
    await backend.verifications.fail({ verificationId: never, now: t });
    assert.deepEqual(await backend.webhooks.deliveries(account.id, e.id, 10), [], 'a check answered with an error (502) is not announced');
    const told = await check('told-202');
    await backend.verifications.markResumable(told, 'req-202');
    await backend.verifications.fail({ verificationId: told, now: t });
    await backend.verifications.fail({ verificationId: told, now: t });
    const raced = await check('failed-then-told');
    await backend.verifications.fail({ verificationId: raced, now: t });
    await backend.verifications.markResumable(raced, 'req-raced');
    const announced = await backend.webhooks.deliveries(account.id, e.id, 10);
    assert.deepEqual(announced.map((d) => d.eventType), ['verification.failed', 'verification.failed'], 'once per check');
    const soon = new Date(Date.now() + 1_000);
    const sent = (await backend.webhooks.claimDue({ owner: 'o', now: soon, leaseUntil: soon, limit: 100 })).filter((d) => d.endpointId === e.id);
    const payloads = sent.map((d) => JSON.parse(d.payload) as { type: string; data: Record<string, unknown> });
    assert.deepEqual(payloads.map((p) => [p.data.engineJobId, p.data.requestId, p.data.status, p.data.errorCode]).sort(), [
      [raced, 'req-raced', 'failed', 'engine_unavailable'],
      [told, 'req-202', 'failed', 'engine_unavailable'],
    ].sort());
    assert.ok(payloads.every((p) => p.type === 'verification.failed' && !('presend' in p.data)));
  });

  test('retention deletes events whose deliveries ended, and keeps those still under way', async () => {
    const t = new Date('2026-02-05T00:00:00Z');
    const { accountId, endpointId } = await endpoint(t);
    const ended = await backend.webhooks.sendTest({ accountId, endpointId, now: t });
    const claimed = await backend.webhooks.claimDue({ owner: 'o', now: new Date('2099-01-01T00:00:00Z'), leaseUntil: new Date('2099-01-02T00:00:00Z'), limit: 100 });
    const mineClaimed = claimed.find((d) => d.id === ended?.id);
    assert.ok(mineClaimed);
    for (const d of claimed) await backend.webhooks.recordOutcome({ deliveryId: d.id, owner: 'o', outcome: { kind: 'delivered', status: 200 }, now: t });
    const open = await backend.webhooks.sendTest({ accountId, endpointId, now: t });
    assert.ok(open);
    await backend.webhooks.purgeFinished(new Date(t.getTime() + 1));
    const left = await backend.webhooks.deliveries(accountId, endpointId, 10);
    assert.deepEqual(left.map((d) => d.id), [open.id]);
  });
});

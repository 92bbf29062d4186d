/**
 * Feedback on PostgreSQL with two serving nodes over one database: a provider's deliveries (and
 * its retries) spread over both nodes record each event once, with soft-bounce counts exact under
 * the race; what one node took in shapes the checks and batches the other answers. Skipped with
 * the reason when PostgreSQL is unreachable, a failure when PRESEND_TEST_POSTGRES asks for it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS } from '../backends.js';
import { allResultItems, newIdem, startHarness, waitFinal } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { createSourceToken } from '../../src/service/feedback/source-tokens.js';

const skip = BACKENDS.find((b) => b.name === 'PostgreSQL')?.skip ?? 'no PostgreSQL entry';
let one: Harness;
let two: Harness;

before(async () => {
  if (skip) return;
  one = await startHarness({ backend: 'PostgreSQL' });
  two = await startHarness({ env: { PRESEND_DATABASE_URL: one.config.databaseUrl } });
});
after(async () => {
  if (skip) return;
  await two.close();
  await one.close();
});

const post = (h: Harness, path: string, record: object) => h.call('POST', path, { rawBody: JSON.stringify(record), headers: { 'content-type': 'application/json' } });

test('deliveries spread over two nodes, each sent twice at once, record every event exactly once; the other node answers with them', { skip }, async () => {
  const a = await one.newAccount(20);
  const token = await createSourceToken(one.backend.feedback, a.accountId, 'postmark', new Date());
  const path = `/feedback/postmark/${token}`;
  const base = Date.now();
  const at = (i: number) => new Date(base - (i + 1) * 60_000).toISOString();
  // 30 soft bounces of one address, a hard bounce and a delivery of others.
  const records: object[] = [
    ...Array.from({ length: 30 }, (_, i) => ({ RecordType: 'Bounce', Type: 'SoftBounce', MessageID: `soft-${i}`, Email: 'deliverable.busy@example.com', BouncedAt: at(i) })),
    { RecordType: 'Bounce', Type: 'HardBounce', MessageID: 'hard-1', Email: 'catchall+gone@example.com', BouncedAt: at(1) },
    { RecordType: 'Delivery', MessageID: 'del-1', Recipient: 'catchall+seen@example.com', DeliveredAt: at(2) },
  ];
  const answers = await Promise.all(records.flatMap((r) => [post(one, path, r), post(two, path, r)]));
  assert.ok(answers.every((r) => r.status === 200), JSON.stringify(answers.find((r) => r.status !== 200)?.body));
  const recorded = answers.reduce((n, r) => n + (r.body.recorded as number), 0);
  const duplicates = answers.reduce((n, r) => n + (r.body.duplicates as number), 0);
  assert.deepEqual([recorded, duplicates], [records.length, records.length]);
  const busy = await two.backend.feedback.address(a.accountId, 'deliverable.busy@example.com');
  assert.equal(busy.history?.softBounces?.count, 30);
  assert.equal(busy.history?.softBounces?.at, at(0));
  const [source] = await two.backend.feedback.sources(a.accountId);
  assert.deepEqual([source?.events, source?.duplicates], [records.length, records.length]);

  const r = await two.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['catchall+gone@example.com', 'catchall+seen@example.com', 'catchall+none@example.com'] } });
  assert.equal(r.status, 202);
  await waitFinal(two, a.live, r.body.request.id);
  const items = await allResultItems<{ email: string; presend: { verdict: string } }>(one, a.live, r.body.request.id);
  assert.deepEqual(
    Object.fromEntries(items.map((i) => [i.email, i.presend.verdict])),
    { 'catchall+gone@example.com': 'UNDELIVERABLE_BOUNCED', 'catchall+seen@example.com': 'DELIVERABLE', 'catchall+none@example.com': 'CATCH_ALL' },
  );
  const single = await one.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable.busy@example.com' } });
  assert.equal(single.body.presend.history.softBounces.count, 30);
});

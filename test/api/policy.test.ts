/**
 * An account's decision policy (docs/policy.md) end to end through the four routes: single
 * checks (live and sandbox keys), batches and list batches follow the policy in force when each
 * check is decided; the envelope stays valid (the harness checks every body against the schema),
 * its reasons name the rule, billing does not move; stored results keep their decisions; a
 * change made on one node applies on another at once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { allResultItems, newIdem, startHarness, waitFinal } from './harness.js';
import type { Harness } from './harness.js';
import { changePolicy } from '../../src/service/policy/policies.js';
import type { PolicyChange } from '../../src/service/policy/decision-policy.js';
import type { PresendEnvelope } from '../../src/core/types.js';

type Item = { email: string; presend: PresendEnvelope };

async function setPolicy(h: Harness, accountId: string, change: PolicyChange): Promise<void> {
  const outcome = await changePolicy(h.backend.policies, { accountId, change, changedBy: 'owner@test.example', now: new Date() });
  assert.equal(outcome.kind, 'set', JSON.stringify(outcome));
}

async function verify(h: Harness, key: string, email: string): Promise<PresendEnvelope> {
  const r = await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.presend as PresendEnvelope;
}

async function batchOf(h: Harness, key: string, body: unknown): Promise<Map<string, PresendEnvelope>> {
  const created = await h.call('POST', '/v1/requests', { key, idem: newIdem(), body });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const id = created.body.request.id as string;
  await waitFinal(h, key, id);
  return resultsOf(h, key, id);
}

async function resultsOf(h: Harness, key: string, id: string): Promise<Map<string, PresendEnvelope>> {
  return new Map((await allResultItems<Item>(h, key, id)).map((i) => [i.email, i.presend]));
}

describeOnEveryBackend('decision policy', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend });
  });
  after(async () => h.close());

  test('single checks follow the policy in force on live and sandbox keys; reasons name the rule; billing follows the verdict', async () => {
    const a = await h.newAccount(20);
    const before = await verify(h, a.live, 'role@policy.example');
    assert.equal(before.decision, 'send_with_caution');
    assert.ok(!before.reasons.includes('policy_rule'));

    await setPolicy(h, a.accountId, { decisions: { ROLE: 'send', CATCH_ALL: 'manual_review' } });
    const live = await verify(h, a.live, 'role@policy.example');
    assert.deepEqual([live.verdict, live.outcome, live.decision], ['ROLE', 'actionable_verdict', 'send']);
    assert.ok(live.reasons.includes('policy_rule'), live.reasons.join());
    assert.deepEqual(live.billing, { disposition: 'debited', credits: 1 });
    const sandbox = await verify(h, a.test, 'role@policy.example');
    assert.equal(sandbox.decision, 'send');
    assert.ok(sandbox.reasons.includes('policy_rule'));
    assert.deepEqual(sandbox.billing, { disposition: 'released', credits: 0 });
    assert.equal((await verify(h, a.live, 'catchall@policy.example')).decision, 'manual_review');
    const untouched = await verify(h, a.live, 'deliverable@policy.example');
    assert.equal(untouched.decision, 'send');
    assert.ok(!untouched.reasons.includes('policy_rule'), 'no rule for DELIVERABLE: no policy reason');

    // The sandbox's catch-all is 0.6 sure, its deliverable 0.95.
    await setPolicy(h, a.accountId, { minConfidence: 0.7 });
    const unsure = await verify(h, a.live, 'catchall@policy.example');
    assert.deepEqual([unsure.verdict, unsure.outcome, unsure.decision], ['CATCH_ALL', 'actionable_verdict', 'do_not_decide']);
    assert.ok(unsure.reasons.includes('policy_confidence_threshold'));
    assert.deepEqual(unsure.billing, { disposition: 'debited', credits: 1 }, 'billing follows the verdict, not the policy');
    assert.equal((await verify(h, a.live, 'deliverable@policy.example')).decision, 'send');
    const unknown = await verify(h, a.live, 'unknown@policy.example');
    assert.equal(unknown.decision, 'do_not_decide');
    assert.ok(!unknown.reasons.includes('policy_confidence_threshold'), 'a non-verdict has no confidence to fall short');

    const balance = await h.backend.ledger.getBalance(a.accountId);
    // Actionable live checks: role×2, catchall×2, deliverable×2 = 6 debits; unknown is released.
    assert.equal(balance.debited, 6);
  });

  test('batches and list batches follow the policy; a change never rewrites stored results', async () => {
    const a = await h.newAccount(20);
    await setPolicy(h, a.accountId, { decisions: { ROLE: 'send' } });
    const created = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['role@batch.example', 'catchall@batch.example'] } });
    assert.equal(created.status, 202);
    const first = created.body.request.id as string;
    const done = await waitFinal(h, a.live, first);
    assert.equal(done.counters.send, 1);
    assert.equal(done.counters.sendWithCaution, 1);
    const firstResults = await resultsOf(h, a.live, first);
    assert.equal(firstResults.get('role@batch.example')?.decision, 'send');
    assert.ok(firstResults.get('role@batch.example')?.reasons.includes('policy_rule'));

    await setPolicy(h, a.accountId, { decisions: { ROLE: 'suppress' } });
    const again = await resultsOf(h, a.live, first);
    assert.deepEqual(again, firstResults, 'stored results keep the decision they were given');
    assert.equal((await waitFinal(h, a.live, first)).counters.send, 1);

    const second = await batchOf(h, a.live, { emails: ['role@batch.example'] });
    assert.equal(second.get('role@batch.example')?.decision, 'suppress');
    const list = await h.backend.lists.importList({ accountId: a.accountId, name: 'policy', now: new Date(), entries: [['role@list.example', 'deliverable@list.example']] });
    const fromList = await batchOf(h, a.test, { listId: list.id });
    assert.equal(fromList.get('role@list.example')?.decision, 'suppress');
    assert.equal(fromList.get('deliverable@list.example')?.decision, 'send');
  });

  test('a policy set on one node applies to the next check on another node at once', async () => {
    const other = await startHarness({ env: { PRESEND_DATABASE_URL: h.config.databaseUrl } });
    try {
      const a = await h.newAccount(10);
      assert.equal((await verify(other, a.live, 'role@nodes.example')).decision, 'send_with_caution');
      await setPolicy(h, a.accountId, { decisions: { ROLE: 'manual_review' } });
      assert.equal((await verify(other, a.live, 'role@nodes.example')).decision, 'manual_review');
      await setPolicy(other, a.accountId, { decisions: { ROLE: 'send' } });
      assert.equal((await verify(h, a.test, 'role@nodes.example')).decision, 'send');
      assert.equal((await batchOf(other, a.test, { emails: ['role@nodes.example'] })).get('role@nodes.example')?.decision, 'send');
    } finally {
      await other.close();
    }
  });
});

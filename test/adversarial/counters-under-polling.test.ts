/**
 * Issue 21, defect 2: a batch's counters polled by many clients at once while it runs. Each API
 * node sums a request's final items once and extends the sums (src/store/roles/batches/request-groups.ts);
 * views of one request interleaving on one node once extended a base another view had already
 * extended (counted items twice: `completed` above `unique`), or rebuilt the sums from a later
 * base (items lost on that node for good). Every answer must keep
 * pending + completed + failed + rechecking == unique, completed <= unique and
 * creditsDebited <= unique, and the final answer must be exact on every node. On PostgreSQL two
 * API nodes (two backends, each with its own sums) serve the same batch; on SQLite one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newIdem, startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { BACKENDS, openDatabase } from '../backends.js';
import type { TestDatabase } from '../backends.js';

const ADDRESSES = 3_000;
const POLLERS_PER_NODE = 8;

interface Counters {
  unique: number;
  pending: number;
  completed: number;
  failed: number;
  rechecking: number;
  creditsDebited: number;
  creditsReleased: number;
  creditsHeld: number;
}

/** What must hold of every answer, mid-run or final. */
function brokenRule(c: Counters): string | null {
  if (c.pending + c.completed + c.failed + c.rechecking !== c.unique) return 'pending + completed + failed + rechecking != unique';
  if (c.completed > c.unique) return 'completed > unique';
  if (c.creditsDebited > c.unique) return 'creditsDebited > unique';
  if (c.creditsHeld + c.creditsDebited + c.creditsReleased !== c.unique) return 'held + debited + released != unique';
  if (Object.values(c).some((n) => typeof n === 'number' && n < 0)) return 'a negative counter';
  return null;
}

for (const backend of BACKENDS) describe(`abuse: batch counters polled by many clients while the batch runs (${backend.name})`, { timeout: 170_000 }, () => {
  let db: TestDatabase | null = null;
  const skip = backend.skip;
  /** The node that runs the batch, and on PostgreSQL a second API node without a worker. */
  const nodes: Harness[] = [];

  before(async () => {
    if (skip) return;
    db = await openDatabase(backend.name);
    const env = { PRESEND_DATABASE_URL: db.url };
    const first = await startHarness({ env });
    nodes.push(first);
    if (backend.name === 'PostgreSQL') nodes.push(await startHarness({ env, server: { worker: false } }));
  });
  after(async () => {
    for (const node of nodes.reverse()) await node.close();
    await db?.drop();
  });

  test('every answer keeps the invariant, and the final one is exact on every node', async (t) => {
    if (skip) return t.skip(skip);
    const runner = nodes[0] as Harness;
    const a = await runner.newAccount(ADDRESSES + 10);
    // Live key over the sandbox engine: actionable verdicts are debited, non-verdicts released.
    const kinds = ['deliverable', 'undeliverable', 'catchall', 'role', 'unknown', 'transient'];
    const emails = Array.from({ length: ADDRESSES }, (_, i) => `${kinds[i % kinds.length]}+${i}@d${i % 97}.example`);
    const created = await runner.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const id = created.body.request.id as string;

    const broken: string[] = [];
    let answers = 0;
    const poll = async (node: Harness): Promise<void> => {
      for (;;) {
        const r = await node.call('GET', `/v1/requests/${id}`, { key: a.live });
        assert.equal(r.status, 200);
        answers += 1;
        const rule = brokenRule(r.body.counters as Counters);
        if (rule) broken.push(`${rule}: ${JSON.stringify(r.body.counters)}`);
        if (r.body.request.state !== 'queued' && r.body.request.state !== 'running') return;
      }
    };
    await Promise.all(nodes.flatMap((node) => Array.from({ length: POLLERS_PER_NODE }, () => poll(node))));
    assert.deepEqual(broken.slice(0, 5), [], `${broken.length} of ${answers} answers broke a rule`);

    // Exact once final, on every node: every item counted once, and the credits the ledger moved.
    const balance = await runner.backend.ledger.getBalance(a.accountId);
    const finals: Counters[] = [];
    for (const [n, node] of nodes.entries()) {
      const r = await node.call('GET', `/v1/requests/${id}`, { key: a.live });
      const c = r.body.counters as Counters;
      assert.equal(r.body.request.state, 'completed', `node ${n}`);
      assert.deepEqual(
        { pending: c.pending, rechecking: c.rechecking, done: c.completed + c.failed, debited: c.creditsDebited, released: c.creditsReleased, held: c.creditsHeld },
        { pending: 0, rechecking: 0, done: ADDRESSES, debited: balance.debited, released: ADDRESSES - balance.debited, held: 0 },
        `node ${n}`,
      );
      finals.push(c);
    }
    for (const c of finals) assert.deepEqual(c, finals[0], 'every node answers the same final counters');
  });
});

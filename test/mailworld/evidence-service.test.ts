/**
 * Evidence end to end (docs/evidence.md), on SQLite and on PostgreSQL: the server with a live
 * engine on a mail world's DNS and SMTP. A single check (POST /v1/verify) and a batch's items
 * (POST /v1/requests) each keep their evidence in the store — the conversation with the
 * simulated MX host, the reply-table row, the catch-all probe — while the API's responses keep
 * their exact shapes (the harness checks every response against the interface's schemas). On
 * PostgreSQL with two nodes sharing the facts cache, a check says what came from the other node.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, describeOnEveryBackend, openDatabase } from '../backends.js';
import type { TestDatabase } from '../backends.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { loadEngines } from '../../src/service/engines/load-engines.js';
import { startHarness, newIdem } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { defaultWorld, startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { createEngine, createSandboxEngine } from '../../src/core/index.js';
import { loadConfig } from '../../src/config.js';
import { until } from '../until.js';
import pg from 'pg';

describeOnEveryBackend('evidence of checks through the service', (backend) => {
  let world: MailWorld;
  let h: Harness;

  before(async () => {
    world = await startMailWorld(defaultWorld());
    const env = { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '2000' };
    h = await startHarness({ backend, env, engines: { live: createEngine(loadConfig(env)), sandbox: createSandboxEngine() } });
  });
  after(async () => {
    await h?.close();
    await world?.close();
  });

  /** The single check's id (the evidence's key): read from the store's table, which the API does not show. */
  const verificationIdOf = async (accountId: string, email: string): Promise<string> => {
    const sql = 'SELECT id FROM verifications WHERE account_id = ? AND email = ?';
    if (h.config.databaseUrl.startsWith('sqlite:')) {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(h.config.databaseUrl.slice('sqlite:'.length), { readonly: true });
      try {
        return (db.prepare(sql).get(accountId, email) as { id: string }).id;
      } finally {
        db.close();
      }
    }
    const client = new pg.Client({ connectionString: h.config.databaseUrl });
    await client.connect();
    try {
      return (await client.query<{ id: string }>('SELECT id FROM verifications WHERE account_id = $1 AND email = $2', [accountId, email])).rows[0]?.id ?? '';
    } finally {
      await client.end();
    }
  };

  test('a single check keeps its evidence by its verification; the response is the interface\'s, without it', async () => {
    const a = await h.newAccount(10);
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'nobody@acme.test', timeoutMs: 10_000 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(JSON.stringify(r.body).includes('evidence"'), false, 'no evidence in the API response');
    assert.equal(JSON.stringify(r.body).includes('transcript'), false);
    const id = await verificationIdOf(a.accountId, 'nobody@acme.test');
    const e = await until('the evidence is kept', () => h.backend.evidence.ofCheck(a.accountId, id, 'nobody@acme.test'));
    assert.equal(e.decidedBy?.reply.code, 550);
    assert.equal(e.decidedBy?.rule?.class, 'no_mailbox');
    assert.ok(e.transcript.some((l) => l.text === 'RCPT TO:<nobody@acme.test>'));
    assert.deepEqual(e.mxHosts?.map((m) => m.name), ['mx1.acme.test', 'mx2.acme.test']);
    const b = await h.newAccount(0);
    assert.equal(await h.backend.evidence.ofCheck(b.accountId, id, 'nobody@acme.test'), null, 'another account reads nothing');
  });

  test('the policy rule that changed the decision is in the evidence', async () => {
    const a = await h.newAccount(10);
    await h.backend.policies.set({ accountId: a.accountId, rules: { decisions: { CATCH_ALL: 'manual_review' }, minConfidence: null }, changedBy: 'owner@ev.test', now: new Date() });
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'someone@catchall.test', timeoutMs: 10_000 } });
    assert.equal(r.status, 200);
    assert.match(JSON.stringify(r.body), /"decision":"manual_review"/, 'the envelope follows the policy');
    const id = await verificationIdOf(a.accountId, 'someone@catchall.test');
    const e = await until('the evidence is kept', () => h.backend.evidence.ofCheck(a.accountId, id, 'someone@catchall.test'));
    assert.deepEqual(e.policy, { reason: 'policy_rule', from: 'send_with_caution', to: 'manual_review' });
    assert.equal(e.catchAll?.result, 'accepts_any_address');
  });

  test('a batch keeps each item\'s evidence, its own RCPT only; a sandbox check keeps none (its envelope says it all)', async () => {
    const a = await h.newAccount(20);
    const emails = ['alice@acme.test', 'nobody@acme.test', 'full.inbox@acme.test', 'anyone@catchall.test', 'x@gone.test'];
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.ok(r.status === 200 || r.status === 202, JSON.stringify(r.body));
    const id = r.body.request.id as string;
    await until('the batch completes', async () => (await h.call('GET', `/v1/requests/${id}`, { key: a.live })).body.request.state === 'completed');
    for (const email of emails) {
      const item = await until(`the evidence of ${email}`, async () => {
        const found = await h.backend.evidence.ofItem(a.accountId, id, email);
        return found?.evidence ? found : null;
      });
      assert.ok(item.result, `${email} is final`);
      const rcpts = item.evidence?.transcript.filter((l) => l.text.startsWith('RCPT TO')).map((l) => l.text) ?? [];
      assert.deepEqual(rcpts, email === 'x@gone.test' ? [] : [`RCPT TO:<${email}>`], email);
    }
    const catchAll = await h.backend.evidence.ofItem(a.accountId, id, 'anyone@catchall.test');
    assert.equal(catchAll?.evidence?.catchAll?.result, 'accepts_any_address');
    assert.equal(catchAll?.result?.envelope.verdict, 'CATCH_ALL');
    assert.equal((await h.backend.evidence.ofItem(a.accountId, id, 'x@gone.test'))?.evidence?.facts[0]?.summary, 'nxdomain');
    const other = await h.newAccount(0);
    assert.equal(await h.backend.evidence.ofItem(other.accountId, id, 'anyone@catchall.test'), null, 'another account reads nothing of the batch');

    const s = await h.call('POST', '/v1/verify', { key: a.test, idem: newIdem(), body: { email: 'someone@example.com' } });
    assert.equal(s.status, 200);
    const sandboxId = await verificationIdOf(a.accountId, 'someone@example.com');
    assert.equal(await h.backend.evidence.ofCheck(a.accountId, sandboxId, 'someone@example.com'), null);
  });
});

describe('evidence on PostgreSQL with two nodes sharing the facts cache', { skip: BACKENDS.find((b) => b.name === 'PostgreSQL')?.skip ?? true }, () => {
  let world: MailWorld;
  let database: TestDatabase;
  const states: Backend[] = [];
  const nodes: Harness[] = [];

  before(async () => {
    world = await startMailWorld(defaultWorld());
    database = await openDatabase('PostgreSQL');
    const env = { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '2000', PRESEND_DATABASE_URL: database.url };
    for (let i = 0; i < 2; i++) {
      // Each node's engine on the store's shared engine state, as `presend serve` wires it.
      const state = await openBackend(database.url);
      states.push(state);
      nodes.push(await startHarness({ env, engines: loadEngines(loadConfig(env), state.engineState) }));
    }
  });
  after(async () => {
    for (const node of nodes) await node.close();
    for (const state of states) await state.close();
    await database?.drop();
    await world?.close();
  });

  test('a node whose DNS answer and catch-all status came from the other node\'s work says so, with their age', async () => {
    const [a, b] = nodes as [Harness, Harness];
    const account = await a.newAccount(10);
    const first = await a.call('POST', '/v1/verify', { key: account.live, idem: newIdem(), body: { email: 'anyone@catchall.test', timeoutMs: 10_000 } });
    assert.equal(first.status, 200);
    const second = await b.call('POST', '/v1/verify', { key: account.live, idem: newIdem(), body: { email: 'someone.else@catchall.test', timeoutMs: 10_000 } });
    assert.equal(second.status, 200);
    const idOf = async (email: string) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query<{ id: string }>('SELECT id FROM verifications WHERE email = $1', [email])).rows[0]?.id ?? '';
      } finally {
        await client.end();
      }
    };
    const onA = await until('node A keeps its evidence', async () => b.backend.evidence.ofCheck(account.accountId, await idOf('anyone@catchall.test'), 'anyone@catchall.test'));
    assert.equal(onA.catchAll?.source, 'probe');
    assert.equal(onA.facts[0]?.source, 'lookup');
    const onB = await until('node B keeps its evidence', async () => a.backend.evidence.ofCheck(account.accountId, await idOf('someone.else@catchall.test'), 'someone.else@catchall.test'));
    assert.deepEqual([onB.catchAll?.source, onB.catchAll?.address, onB.catchAll?.result], ['cache', null, 'accepts_any_address'], 'the probe ran on the other node');
    assert.equal(onB.facts[0]?.source, 'cache', 'the MX answer came from the shared cache');
    assert.ok((onB.facts[0]?.ageMs ?? -1) >= 0, 'with its age, stamped by the node that looked it up');
    assert.ok(onB.transcript.some((l) => l.text === 'RCPT TO:<someone.else@catchall.test>'));
  });
});

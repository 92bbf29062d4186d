/**
 * No account can hold the engine for everyone (issue 12, finding 1). A hostile host of the mail
 * world answers every RCPT with a 451 just under the step timeout; one account fires many
 * checks at it with `timeoutMs: 1`; another account's check of a normal address still gets
 * its answer, promptly. Then each defence on its own: the key and account caps (429 with
 * Retry-After), the overall deadline of one check, and the per-MX-host budget.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { createEngine, createSandboxEngine } from '../../src/core/index.js';
import { defaultWorld, startMailWorld } from '../../src/mailworld/index.js';
import type { MailWorld, WorldSpec } from '../../src/mailworld/index.js';
import { describeOnEveryBackend } from '../backends.js';
import type { BackendName } from '../backends.js';
import { startHarness, newIdem } from './harness.js';
import type { Harness } from './harness.js';
import { isError } from './schema-check.js';

const STEP_TIMEOUT_MS = 1000;
/** Just under the step timeout: each RCPT holds a session as long as it can without failing it. */
const RCPT_DELAY_MS = 900;
const HOSTILE_HOSTS = 4;

function noisyWorld(): WorldSpec {
  const spec = defaultWorld();
  const numbers = Array.from({ length: HOSTILE_HOSTS }, (_, i) => i + 1);
  return {
    ...spec,
    hosts: [...spec.hosts, ...numbers.map((n) => ({ name: `mx.slow-4xx-${n}.test`, behaviour: { kind: 'slow_rcpt_4xx' as const, delayMs: RCPT_DELAY_MS } }))],
    domains: [...spec.domains, ...numbers.map((n) => ({ name: `slow-4xx-${n}.test`, mx: [{ host: `mx.slow-4xx-${n}.test`, preference: 10 }], otherMailboxes: 'accept' as const }))],
  };
}

let world: MailWorld;
before(async () => {
  world = await startMailWorld(noisyWorld(), { truth: { smtpTimeoutMs: STEP_TIMEOUT_MS } });
});
after(async () => world?.close());

async function liveHarness(backend: BackendName, env: Record<string, string>, maxInFlightVerifies?: number): Promise<Harness> {
  const all = { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: String(STEP_TIMEOUT_MS), ...env };
  return startHarness({
    backend,
    env: all,
    engines: { live: createEngine(loadConfig(all)), sandbox: createSandboxEngine(undefined, { slowDelayMs: 30_000 }) },
    ...(maxInFlightVerifies !== undefined ? { server: { maxInFlightVerifies } } : {}),
  });
}

const verify = (h: Harness, key: string, email: string, timeoutMs: number) => h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email, timeoutMs } });

function isSlowDown(r: { status: number; headers: Headers; body: { error: { code: string } } }): void {
  isError(r, 429, 'rate_limited');
  assert.ok(Number(r.headers.get('retry-after')) >= 1, 'a 429 carries Retry-After (docs/interface-spec.md §7)');
}

describeOnEveryBackend('noisy neighbour: one account cannot hold the engine', (backend) => {
  test('an account flooding a hostile host with timeoutMs 1 is slowed down (429); another account still gets its answer promptly', async (t) => {
    // A process cap of 20 stands for the default 1,000: the flood needs 60 requests, not 3,000.
    const h = await liveHarness(backend, {}, 20);
    t.after(() => h.close());
    const attacker = await h.newAccount(1000, `attacker-${newIdem()}`);
    const victim = await h.newAccount(10, `victim-${newIdem()}`);

    const flood = await Promise.all(Array.from({ length: 60 }, (_, i) => verify(h, attacker.live, `user${i}@slow-4xx-${(i % HOSTILE_HOSTS) + 1}.test`, 1)));

    const started = Date.now();
    const answer = await verify(h, victim.live, 'alice@acme.test', 10_000);
    const tookMs = Date.now() - started;
    assert.equal(answer.status, 200, `the other account's check: ${answer.status} ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.presend.verdict, world.expectedVerdict('alice@acme.test'));
    assert.ok(tookMs < 5000, `answered in ${tookMs} ms`);

    const accepted = flood.filter((r) => r.status === 202).length;
    for (const r of flood.filter((x) => x.status !== 202)) isSlowDown(r);
    assert.ok(accepted >= 1, 'the attacker still runs checks');
    assert.ok(accepted <= 10, `one account took ${accepted} of the 20 seats: it must leave room for others`);
    t.diagnostic(`flood: ${accepted} of 60 accepted, ${60 - accepted} answered 429; the other account's check answered 200 in ${tookMs} ms`);

    // The attacker keeps being refused while its checks hold their seats; the victim never is.
    isSlowDown(await verify(h, attacker.live, 'again@slow-4xx-1.test', 1));
    const second = await verify(h, victim.live, 'bob@acme.test', 10_000);
    assert.equal(second.status, 200);

    // A second account joins the flood: each flooding account's share shrinks, and room is left for a third.
    const accomplice = await h.newAccount(1000, `accomplice-${newIdem()}`);
    const flood2 = await Promise.all(Array.from({ length: 60 }, (_, i) => verify(h, accomplice.live, `other${i}@slow-4xx-${(i % HOSTILE_HOSTS) + 1}.test`, 1)));
    const accepted2 = flood2.filter((r) => r.status === 202).length;
    for (const r of flood2.filter((x) => x.status !== 202)) isSlowDown(r);
    assert.ok(accepted2 >= 1 && accepted2 <= 6, `the second flooding account got ${accepted2} seats, its share is floor(20 / 3) = 6`);
    const third = await h.newAccount(10, `third-${newIdem()}`);
    assert.equal((await verify(h, third.live, 'alice@acme.test', 10_000)).status, 200, 'a third account still gets its answer');
  });

  test('the key cap, the account cap, the deadline of one check and the per-MX-host budget', async (t) => {
    const h = await liveHarness(backend, {
      PRESEND_MAX_RUNNING_CHECKS_PER_ACCOUNT: '4',
      PRESEND_MAX_RUNNING_CHECKS_PER_KEY: '3',
      PRESEND_CHECK_DEADLINE_MS: '2500',
      PRESEND_MAX_CHECKS_PER_MX_HOST: '2',
    });
    t.after(() => h.close());
    const a = await h.newAccount(100, `capped-${newIdem()}`);

    // The live key: 3 checks run (two hostile hosts, within their budgets), the 4th is over the key's cap.
    const sent = ['a@slow-4xx-1.test', 'b@slow-4xx-1.test', 'c@slow-4xx-2.test', 'd@slow-4xx-2.test'].map((email) => ({ email, idem: newIdem() }));
    const live = await Promise.all(sent.map(({ email, idem }) => h.call('POST', '/v1/verify', { key: a.live, idem, body: { email, timeoutMs: 1 } })));
    assert.deepEqual(live.map((r) => r.status).sort(), [202, 202, 202, 429]);
    const acceptedAt = live.findIndex((r) => r.status === 202);
    const keyRefusal = live.find((r) => r.status === 429);
    if (keyRefusal) {
      isSlowDown(keyRefusal);
      assert.match(keyRefusal.body.error.message, /key/);
    }
    // A replay takes no seat: the caller of a 202 asking again for its check is answered, not refused.
    const first = sent[acceptedAt];
    assert.ok(first);
    const replayed = await h.call('POST', '/v1/verify', { key: a.live, idem: first.idem, body: { email: first.email, timeoutMs: 1 } });
    assert.equal(replayed.status, 202, `a replay past the cap: ${replayed.status} ${JSON.stringify(replayed.body)}`);
    assert.equal(replayed.body.engineJobId, live[acceptedAt]?.body.engineJobId, 'the same check, not a new one');
    // The sandbox key of the same account: one more check fills the account's 4; the next is over it.
    assert.equal((await verify(h, a.test, 'slow@example.com', 1)).status, 202);
    const accountRefusal = await verify(h, a.test, 'slow@example.org', 1);
    isSlowDown(accountRefusal);
    assert.match(accountRefusal.body.error.message, /account/);

    // The deadline: a check held by the hostile host ends at 2.5 s, TRANSIENT and unbilled, even for a caller ready to wait 20 s.
    const b = await h.newAccount(5, `deadline-${newIdem()}`);
    const started = Date.now();
    const cut = await verify(h, b.live, 'someone@slow-4xx-3.test', 20_000);
    const tookMs = Date.now() - started;
    assert.equal(cut.status, 200);
    assert.equal(cut.body.presend.verdict, 'TRANSIENT');
    assert.ok(cut.body.presend.reasons.includes('aborted'), JSON.stringify(cut.body.presend.reasons));
    assert.notEqual(cut.body.presend.billing.disposition, 'debited');
    assert.ok(tookMs >= 2000 && tookMs < 6000, `ended after ${tookMs} ms`);
    assert.equal((await h.backend.ledger.getBalance(b.accountId)).available, 5);

    // The per-MX-host budget: two checks of one host are in the engine; a third, from another account, ends at once.
    const holder = await h.newAccount(5, `holder-${newIdem()}`);
    const c = await h.newAccount(5, `budget-${newIdem()}`);
    for (const e of ['x@slow-4xx-4.test', 'y@slow-4xx-4.test']) assert.equal((await verify(h, holder.live, e, 1)).status, 202);
    const overBudgetAt = Date.now();
    const over = await verify(h, c.live, 'z@slow-4xx-4.test', 20_000);
    assert.equal(over.status, 200);
    assert.equal(over.body.presend.verdict, 'TRANSIENT');
    assert.ok(Date.now() - overBudgetAt < 1500, `over budget, answered in ${Date.now() - overBudgetAt} ms`);
    assert.equal((await h.backend.ledger.getBalance(c.accountId)).available, 5);
  });
});

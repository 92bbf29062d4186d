import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { benchWorld, defaultWorld } from '../../src/mailworld/index.js';
import type { EngineResult } from '../../src/core/types.js';
import { worstCaseCeiling } from '../../src/core/smtp/group-plan.js';
import { startEngineWorld } from './world-engine.js';

describe('many addresses, few polite sessions', () => {
  test('1,000 addresses over 10 domains: sessions are reused within their error budget, never more than the limit per MX host, every result matches the truth', async (t) => {
    const spec = benchWorld({ domains: 10, mailboxesPerDomain: 100, catchAllShare: 0.2, seed: 7 });
    const ew = await startEngineWorld(spec, { maxSessionsPerMx: 2 });
    t.after(() => ew.close());
    const results: EngineResult[] = [];
    await ew.engine.verifyMany(spec.addresses, (result) => {
      results.push(result);
    });

    assert.equal(results.length, 1000);
    const wrong = results.filter((r) => r.envelope.verdict !== ew.world.expectedVerdict(r.email));
    assert.deepEqual(
      wrong.map((r) => `${r.email}: ${r.envelope.verdict} ≠ ${ew.world.expectedVerdict(r.email)}`),
      [],
    );

    for (const host of spec.hosts) {
      assert.ok(ew.world.recorder.maxConcurrent(host.name) <= 2, `${host.name} saw ${ew.world.recorder.maxConcurrent(host.name)} sessions at once`);
    }
    // A session carries many recipients, and no more refusals than the error budget allows
    // even if every recipient of its last group were refused (group-plan.ts).
    const sessions = ew.world.recorder.sessions();
    const used = sessions.filter((s) => s.commands.some((c) => c.command.startsWith('RCPT')));
    assert.ok(1000 / used.length >= 15, `${used.length} sessions for 1,000 addresses`);
    const errors = sessions.map((s) => s.commands.filter((c) => (c.replyCode ?? 0) >= 400).length);
    assert.ok(Math.max(...errors) <= worstCaseCeiling(8), `errors per session: ${errors.join(' ')}`);
    // One RCPT per address plus one catch-all probe per domain, nothing repeated.
    assert.equal(ew.world.recorder.rcptCount(), 1000 + spec.domains.length);
    const verdicts = new Set(results.map((r) => r.envelope.verdict));
    for (const v of ['DELIVERABLE', 'UNDELIVERABLE_NO_MAILBOX', 'MAILBOX_FULL', 'ROLE', 'GREYLISTED', 'CATCH_ALL']) assert.ok(verdicts.has(v as never), v);
  });

  test('the catch-all probe is made once per domain and then served from the cache', async (t) => {
    const spec = benchWorld({ domains: 2, mailboxesPerDomain: 20, catchAllShare: 1, seed: 3 });
    const ew = await startEngineWorld(spec);
    t.after(() => ew.close());
    const probes = (): number =>
      ew.world.recorder
        .sessions()
        .flatMap((s) => s.commands)
        .filter((c) => /^RCPT TO:<presend-/.test(c.command)).length;
    await ew.engine.verifyMany(spec.addresses.slice(0, 20), () => undefined);
    assert.equal(probes(), 2);
    await ew.engine.verifyMany(spec.addresses.slice(20), () => undefined);
    assert.equal(probes(), 2);
  });

  test('results are reported one by one as they are known, before the whole batch ends', async (t) => {
    const spec = benchWorld({ domains: 3, mailboxesPerDomain: 10, seed: 5 });
    spec.hosts.push({ name: 'mx.slow.test', behaviour: { kind: 'slow_banner', delayMs: 400 } });
    spec.domains.push({ name: 'slow.test', mx: [{ host: 'mx.slow.test', preference: 10 }], mailboxes: { alice: 'accept' } });
    const ew = await startEngineWorld(spec);
    t.after(() => ew.close());
    const order: string[] = [];
    await ew.engine.verifyMany(['alice@slow.test', ...spec.addresses], (r) => {
      order.push(r.email);
    });
    assert.equal(order.length, 31);
    assert.equal(order.at(-1), 'alice@slow.test', 'the slow domain did not hold back the others');
  });

  test('the batch fast path and the per-address path give the same envelope for every address', async (t) => {
    const spec = defaultWorld();
    const ew = await startEngineWorld(spec);
    t.after(() => ew.close());
    const addresses = [...new Set([...spec.samples.map((s) => s.email), 'not an address', 'someone@mailinator.com', 'info@acme.test', 'bob@gmial.com'])];
    const collect = async (general: boolean): Promise<Map<string, unknown>> => {
      const engine = ew.another();
      const seen = new Map<string, unknown>();
      // Any per-call list (even an empty one) sends verifyMany down the per-address path.
      await engine.verifyMany(addresses, (r) => {
        // Retry windows carry timestamps; compare whether there is one and its affinity.
        seen.set(r.input, { ...r.envelope, retry: r.envelope.retry?.affinity_required ?? null });
      }, general ? { lists: {} } : {});
      // Its idle sessions QUIT now: a lingering one would make mx.busy.test (one connection at
      // most) answer the next engine's session with 421, and the comparison would depend on timing.
      await engine.close();
      return seen;
    };
    const fast = await collect(false);
    ew.world.reset();
    const general = await collect(true);
    assert.equal(fast.size, addresses.length);
    for (const address of addresses) assert.deepEqual(fast.get(address), general.get(address), address);
  });
});

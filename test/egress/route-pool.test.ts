/**
 * The egress pool in the engine (PRESEND_EGRESS with several routes): two loopback source
 * addresses, and one provider's mail server that turns route b's address away as listed. Its
 * work moves to route a, every address gets its true verdict (none UNKNOWN because of the
 * blocked route), route b is paused for that provider only, and when a provider refuses every
 * route its addresses are not asked: recheck_scheduled with a retry window at the first route's
 * return, not UNKNOWN and not TRANSIENT.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/core/index.js';
import type { Engine, EngineResult } from '../../src/core/index.js';
import { startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { A, B, LISTING_DOMAINS, LISTING_MX, MICROSOFT_DOMAINS, MICROSOFT_MX, OTHER_DOMAINS, OTHER_MX, ROUTES, addressesAt, poolWorld } from './pool-world.js';
import { Metrics } from '../../src/service/operations/metrics.js';

async function verifyAll(engine: Engine, addresses: readonly string[]): Promise<Map<string, EngineResult>> {
  const results = new Map<string, EngineResult>();
  await engine.verifyMany(addresses, (r) => {
    results.set(r.email, r);
  });
  return results;
}

describe('a pool of egress routes', () => {
  let world: MailWorld;
  let engine: Engine;
  before(async () => {
    world = await startMailWorld(poolWorld());
    const config = loadConfig({ ...world.env(), PRESEND_EGRESS: ROUTES, PRESEND_SMTP_TIMEOUT_MS: '5000' });
    engine = createEngine({ ...config, hostDownMs: 60_000 });
  });
  after(async () => {
    await engine.close();
    await world.close();
  });

  const sessionsAt = (host: string, client: string) => world.recorder.sessions(host).filter((s) => s.client === client);

  test('a route listed by one provider: its work moves, every address is right, the route is paused for that provider only', async () => {
    const microsoft = MICROSOFT_DOMAINS.flatMap(addressesAt);
    // An independent server that lists b is in the same first batch: it pauses b for itself only.
    const plain = [...OTHER_DOMAINS, ...LISTING_DOMAINS].flatMap(addressesAt);
    const results = await verifyAll(engine, [...microsoft, ...plain]);
    const wrong = [...microsoft, ...plain].filter((a) => results.get(a)?.envelope.verdict !== world.expectedVerdict(a));
    assert.deepEqual(wrong.map((a) => `${a}: ${results.get(a)?.envelope.verdict} (${results.get(a)?.envelope.reasons.join(',')})`), []);
    assert.ok(sessionsAt(MICROSOFT_MX, B).length >= 1, 'route b was tried and turned away');
    assert.ok(sessionsAt(MICROSOFT_MX, A).length >= 1, 'its work went by route a');

    // Later work for the provider does not go by the paused route; other providers still use it.
    world.reset();
    const again = await verifyAll(engine, [...microsoft, ...plain].map((a) => a.replace('@', '+2@')));
    assert.equal([...again.values()].filter((r) => r.envelope.verdict === 'UNKNOWN').length, 0);
    assert.equal(sessionsAt(MICROSOFT_MX, B).length, 0, 'route b is paused for microsoft');
    assert.ok(sessionsAt(MICROSOFT_MX, A).length >= 1);
    assert.ok(sessionsAt(OTHER_MX, B).length >= 1 && sessionsAt(OTHER_MX, A).length >= 1, 'both routes serve the other provider');
    assert.equal(sessionsAt(LISTING_MX, B).length, 0, 'route b is paused for the server that listed it');
    for (const domain of OTHER_DOMAINS) {
      const clients = new Set(world.recorder.sessions(OTHER_MX).filter((s) => s.commands.some((c) => c.command.includes(`@${domain}`))).map((s) => s.client));
      assert.equal(clients.size, 1, `${domain}: one route, so a greylisting recheck comes from the same address`);
    }
    // /metrics per route: recipients by route, blocks and the pause of route b for microsoft only.
    const text = await new Metrics({ egress: () => engine.egressStats?.() ?? null }).render();
    assert.match(text, /presend_egress_probes_total\{route="a"\} \d+/);
    assert.match(text, /presend_egress_probes_total\{route="b"\} \d+/);
    assert.match(text, /presend_egress_blocks_total\{route="b",family="microsoft"\} [1-9]\d*/);
    assert.match(text, /presend_egress_paused_until_seconds\{route="b",family="microsoft"\} \d{10}/);
    assert.match(text, /presend_egress_paused_until_seconds\{route="b",family="other:mx\.listing\.test"\} \d{10}/);
    assert.doesNotMatch(text, /presend_egress_paused_until_seconds\{route="a"|family="other:mx\.plain\.test"/);
  });

  test('when a provider refuses every route, its addresses wait recheck_scheduled until the first route comes back, neither UNKNOWN nor TRANSIENT', async () => {
    const started = Date.now();
    const results = await verifyAll(engine, addressesAt('walled.test'));
    const stats = engine.egressStats?.();
    const pauses = (stats?.paused ?? []).filter((p) => p.family === 'barracuda');
    assert.deepEqual(pauses.map((p) => p.route).sort(), ['a', 'b'], 'both routes paused for Barracuda');
    const firstBack = Math.min(...pauses.map((p) => p.until));
    for (const [email, result] of results) {
      const e = result.envelope;
      assert.deepEqual([e.status, e.outcome, e.verdict, e.decision, e.reasons[0]], ['recheck_scheduled', 'non_verdict', null, 'recheck_later', 'egress_paused'], email);
      assert.deepEqual(e.billing, { disposition: 'released', credits: 0 });
      assert.equal(e.retry?.eligible_at, new Date(firstBack).toISOString(), 'the retry window opens when the first route comes back');
      assert.equal(e.retry?.affinity_required, false, 'any worker may ask again: the pauses are the pool\'s, not a greylisting');
      assert.ok(Date.parse(e.retry.eligible_at) >= started + 60_000, 'the window is the pause, not the recheck delay');
    }
    assert.equal(results.size, 6);
  });
});

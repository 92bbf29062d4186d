/**
 * Per-route politeness in the engine against the mail world, its waits on a clock the test
 * moves: with a budget of N RCPTs a minute per host, the host never sees more than the budget
 * allows at any point of the (test's) time — at most N in the first minute — and every address
 * still gets its true verdict; with a short bound, the recipients that would wait past it end
 * recheck_scheduled (host_throttled), never a verdict, never an attempt.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, type PresendConfig } from '../../src/config.js';
import { createEngine } from '../../src/core/index.js';
import type { Engine, EngineResult } from '../../src/core/index.js';
import { startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { Metrics } from '../../src/service/operations/metrics.js';
import { until } from '../until.js';
import { manualWaitClock, type ManualWaitClock } from './manual-wait-clock.js';
import { OTHER_DOMAINS, OTHER_MX, addressesAt, poolWorld } from './pool-world.js';

const PER_MINUTE = 6;
const INTERVAL_MS = 60_000 / PER_MINUTE;

/** Runs the batch, moving the clock one interval whenever the gate waits; checks the host's RCPTs against the budget at each step. */
async function paced(engine: Engine, clock: ManualWaitClock, rcptsSeen: () => number, addresses: string[]): Promise<{ results: Map<string, EngineResult>; firstMinute: number }> {
  const results = new Map<string, EngineResult>();
  let done = false;
  const run = engine.verifyMany(addresses, (r) => void results.set(r.email, r)).finally(() => (done = true));
  const start = clock.now();
  let firstMinute = 0;
  for (;;) {
    await until('the engine waits for the budget, or is done', () => done || clock.sleepers() > 0);
    const elapsed = clock.now() - start;
    const seen = rcptsSeen();
    assert.ok(seen <= 1 + Math.floor(elapsed / INTERVAL_MS), `${seen} RCPTs after ${elapsed} ms of a budget of ${PER_MINUTE} a minute`);
    if (elapsed < 60_000) firstMinute = seen;
    if (done) break;
    clock.advance(INTERVAL_MS);
  }
  await run;
  return { results, firstMinute };
}

describe('per-route politeness against the mail world', () => {
  let world: MailWorld;
  let config: PresendConfig;
  const engines: Engine[] = [];
  before(async () => {
    world = await startMailWorld(poolWorld());
    config = loadConfig({ ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '5000', PRESEND_EGRESS_RCPTS_PER_MINUTE_PER_HOST: String(PER_MINUTE) });
  });
  after(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await world.close();
  });

  test(`${PER_MINUTE} RCPTs a minute per host: the host never sees more, every address still ends right`, async () => {
    const clock = manualWaitClock();
    const engine = createEngine({ ...config, hostThrottleBoundMs: 3_600_000 }, { politenessClock: clock });
    engines.push(engine);
    world.reset();
    const addresses = OTHER_DOMAINS.slice(0, 2).flatMap(addressesAt);
    const { results, firstMinute } = await paced(engine, clock, () => world.recorder.rcptCount(OTHER_MX), addresses);
    assert.ok(firstMinute <= PER_MINUTE, `${firstMinute} in the first minute`);
    // One RCPT per address and one catch-all probe per domain: nothing lost, nothing asked twice.
    assert.equal(world.recorder.rcptCount(OTHER_MX), addresses.length + 2);
    const wrong = addresses.filter((a) => results.get(a)?.envelope.verdict !== world.expectedVerdict(a));
    assert.deepEqual(wrong.map((a) => `${a}: ${results.get(a)?.envelope.verdict} (${results.get(a)?.envelope.reasons.join(',')})`), []);
    const text = await new Metrics({ politeness: () => engine.politenessStats?.() ?? null }).render();
    assert.match(text, /presend_egress_politeness_waits_total\{route="direct",kind="rcpt"\} [1-9]\d*/);
  });

  test('recipients that would wait past the bound are not asked: recheck_scheduled (host_throttled), no attempt, the rest right', async () => {
    const clock = manualWaitClock();
    // Tokens every 10 s, a bound of 30 s: the fourth in line and later would wait past it.
    const engine = createEngine({ ...config, hostThrottleBoundMs: 30_000 }, { politenessClock: clock });
    engines.push(engine);
    world.reset();
    const addresses = addressesAt(OTHER_DOMAINS[2] as string);
    const { results } = await paced(engine, clock, () => world.recorder.rcptCount(OTHER_MX), addresses);
    assert.equal(results.size, addresses.length, 'nothing lost');
    const throttled = [...results.values()].filter((r) => r.envelope.status === 'recheck_scheduled' && r.envelope.reasons.includes('host_throttled'));
    assert.ok(throttled.length >= 1, 'some waited too long');
    for (const r of throttled) {
      assert.equal(r.envelope.verdict, null);
      assert.equal(r.envelope.billing.credits, 0);
      assert.equal(r.attempts, 0, `${r.email} was not asked, so it used no attempt`);
    }
    const others = [...results.values()].filter((r) => !throttled.includes(r));
    assert.ok(others.length >= 1);
    assert.deepEqual(others.filter((r) => r.envelope.verdict !== world.expectedVerdict(r.email)).map((r) => `${r.email}: ${r.envelope.verdict}`), []);
    assert.ok(world.recorder.rcptCount(OTHER_MX) <= others.length + 1, 'the ones not asked sent no RCPT');
  });
});

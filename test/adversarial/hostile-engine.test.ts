import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineResult } from '../../src/core/types.js';
import { startEngineWorld } from '../core/world-engine.js';
import type { EngineWorld } from '../core/world-engine.js';
import { CROWD, hostileWorld, TARPIT_FARM_IP } from './hostile-world.js';

/**
 * What the engine's own hostile tests do not cover: a catch-all probe that is tarpitted while
 * the real recipients are answered, a banner a byte a second, and thousands of MX records that
 * all lead to one tarpit. Engine-level, over real DNS and SMTP on loopback.
 */
const SMTP_TIMEOUT_MS = 2500; // more than the 1 s between the bytes of the one-byte banner
const DNS_TIMEOUT_MS = 2000;

describe('hostile hosts the engine tests leave out', () => {
  let ew: EngineWorld;
  const results = new Map<string, EngineResult>();
  const emails = ['alice@probe-tarpit.test', 'bob@probe-tarpit.test', 'alice@one-byte.test', 'alice@tarpit-farm.test'];

  before(async () => {
    ew = await startEngineWorld(hostileWorld(), { smtpTimeoutMs: SMTP_TIMEOUT_MS, dnsTimeoutMs: DNS_TIMEOUT_MS });
    await ew.engine.verifyMany(emails, (r) => {
      results.set(r.input, r);
    });
  });
  after(async () => ew?.close());

  test('a tarpitted catch-all probe does not take the answered recipients down with it', () => {
    const alice = results.get('alice@probe-tarpit.test');
    const bob = results.get('bob@probe-tarpit.test');
    assert.equal(alice?.envelope.verdict, 'DELIVERABLE');
    assert.equal(bob?.envelope.verdict, 'UNDELIVERABLE_NO_MAILBOX');
    assert.equal(alice?.envelope.verdict, ew.world.expectedVerdict('alice@probe-tarpit.test'));
    // Not knowing whether the domain is catch-all leaves the accept weaker evidence (docs/design.md §5).
    assert.ok((alice?.envelope.confidence ?? 1) < 0.95, `confidence ${alice?.envelope.confidence}`);
    // The probe's RCPT was sent and never answered; each real recipient was asked a bounded number of times.
    const commands = ew.world.recorder.sessions('mx.probe-tarpit.test').flatMap((s) => s.commands);
    const rcpts = commands.filter((c) => c.command.toUpperCase().startsWith('RCPT TO:'));
    assert.ok(rcpts.some((c) => c.replyCode === null && !/alice|bob/.test(c.command)), 'the random probe went unanswered');
    for (const who of ['alice', 'bob']) {
      const asked = rcpts.filter((c) => c.command.includes(`<${who}@`)).length;
      assert.ok(asked >= 1 && asked <= 4, `${who} asked ${asked} times`);
    }
  });

  test('a hundred recipients behind one tarpitted probe each get their own verdict', async () => {
    const crowd = Array.from({ length: CROWD }, (_, i) => `user${i}@probe-tarpit-crowd.test`);
    const verdicts = new Map<string, string | null>();
    await ew.engine.verifyMany(crowd, (r) => {
      verdicts.set(r.input, r.envelope.verdict);
    });
    const wrong = crowd.filter((e) => verdicts.get(e) !== ew.world.expectedVerdict(e)).map((e) => `${e}: ${verdicts.get(e)} ≠ ${ew.world.expectedVerdict(e)}`);
    assert.deepEqual(wrong, []);
    // Each recipient is asked a bounded number of times, not once per retry of the stalled session.
    const rcpts = ew.world.recorder.rcptCount('mx.probe-tarpit.test');
    assert.ok(rcpts <= 4 * CROWD, `${rcpts} RCPTs for ${CROWD} recipients`);
  });

  test('a banner trickled a byte a second ends at the step deadline as TRANSIENT smtp_timeout', () => {
    const r = results.get('alice@one-byte.test');
    assert.equal(r?.envelope.verdict, 'TRANSIENT');
    assert.equal(r?.envelope.reasons[0], 'smtp_timeout');
    assert.equal(r?.envelope.verdict, ew.world.expectedVerdict('alice@one-byte.test'));
    // Fewer bytes than the banner has arrived: the deadline covers the whole reply, not the gap between bytes.
    const sessions = ew.world.recorder.sessions('mx.one-byte.test');
    assert.ok(sessions.length >= 1 && sessions.length <= 3, `${sessions.length} sessions`);
  });

  test('two thousand MX names on one tarpit address cost one attempt, not one per name', () => {
    const r = results.get('alice@tarpit-farm.test');
    assert.equal(r?.envelope.verdict, 'TRANSIENT');
    assert.equal(r?.envelope.verdict, ew.world.expectedVerdict('alice@tarpit-farm.test'));
    const sessions = ew.world.recorder.sessions().filter((s) => s.ip === TARPIT_FARM_IP).length;
    assert.ok(sessions >= 1 && sessions <= 2, `${sessions} sessions to the tarpit`);
  });
});

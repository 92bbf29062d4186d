import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryFactsCache } from '../../src/core/facts-cache.js';
import { systemClock } from '../../src/core/ports.js';
import type { EngineTuning } from '../../src/core/engine-config.js';
import type { EngineResult } from '../../src/core/types.js';
import type { HostDefences } from '../../src/mailworld/index.js';
import { defendedWorld } from './defended-world.js';
import { startEngineWorld, type EngineWorld } from './world-engine.js';

/**
 * Real servers' defences against address harvesting (spec.ts HostDefences), one per test: the
 * engine must give every address its right verdict, set off no defence it could have kept
 * clear of, and learn what it could not know beforehand so the next batch sets off none.
 * Delays are short here (a tenth of the real ones); the engine's slow-reply threshold and
 * back-off are shortened to match.
 */
const FAST: Partial<EngineTuning> = { slowReplyMs: 100, backoffMs: 50, maxBackoffMs: 200 };
/** Nothing here is about timeouts: a loaded machine must not turn a slow reply into one. */
const PATIENT = { smtpTimeoutMs: 5000 };

async function verifyAll(ew: EngineWorld, addresses: readonly string[], engine = ew.engine): Promise<Map<string, EngineResult>> {
  const results = new Map<string, EngineResult>();
  await engine.verifyMany(addresses, (r) => {
    results.set(r.email, r);
  });
  return results;
}

function assertAllRight(ew: EngineWorld, addresses: readonly string[], results: Map<string, EngineResult>): void {
  assert.equal(results.size, addresses.length);
  const wrong = addresses.filter((a) => results.get(a)?.envelope.verdict !== ew.world.expectedVerdict(a));
  assert.deepEqual(
    wrong.map((a) => `${a}: ${results.get(a)?.envelope.verdict} (${results.get(a)?.envelope.reasons.join(',')}) ≠ ${ew.world.expectedVerdict(a)}`),
    [],
  );
}

async function scenario(defences: HostDefences, tuning: Partial<EngineTuning> = {}, world: Parameters<typeof defendedWorld>[1] = {}) {
  const dw = defendedWorld(defences, world);
  const ew = await startEngineWorld(dw.spec, { ...FAST, ...PATIENT, ...tuning });
  return { dw, ew, hits: () => ew.world.recorder.limitHits(dw.host) };
}

describe('real servers defences: every verdict right, no limit hit that could be avoided', () => {
  test('Postfix with its stock limits (soft 10, hard 20): no session reaches the soft limit', async (t) => {
    const { dw, ew, hits } = await scenario({ errorLimits: { soft: 10, hard: 20, sleepMs: 300 }, junkCommandLimit: 100 }, {}, { addresses: 120 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
    assert.deepEqual(hits(), {});
    const errors = ew.world.recorder.sessions(dw.host).map((s) => s.commands.filter((c) => (c.replyCode ?? 0) >= 400).length);
    assert.ok(Math.max(...errors) <= 9, `errors per session: ${errors.join(' ')}`);
  });

  test('Postfix with stricter limits: the first session shows them, the engine lowers its budget, and the next batch (same facts cache) sets off nothing', async (t) => {
    const cache = createMemoryFactsCache(systemClock);
    const { dw, ew, hits } = await scenario({ errorLimits: { soft: 4, hard: 8, sleepMs: 300 } }, {}, { addresses: 80 });
    t.after(() => ew.close());
    const first = ew.another({}, { cache });
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses, first));
    // Limits below Postfix's defaults cannot be known before the host shows them: the first
    // sessions may set them off (a 421 loses nothing), the lesson is kept.
    assert.ok((hits().too_many_errors ?? 0) <= 2, JSON.stringify(hits()));
    await first.close();
    ew.world.reset();
    const next = ew.another({}, { cache });
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses, next));
    assert.deepEqual(hits(), {}, 'the next batch starts with the learnt budget');
  });

  test('Postfix stress mode (hard error limit 1): a 421 after the first error loses nothing', async (t) => {
    const { dw, ew } = await scenario({ stress: true, errorLimits: { soft: 10, hard: 20, sleepMs: 300 } }, {}, { addresses: 30 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
  });

  test('Postfix connection count limit 1: the second session is refused once, then the host gets one session at a time', async (t) => {
    const cache = createMemoryFactsCache(systemClock);
    const { dw, ew, hits } = await scenario({ connectionCountLimit: 1 }, {}, { addresses: 60 });
    t.after(() => ew.close());
    const first = ew.another({}, { cache });
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses, first));
    assert.ok((hits().too_many_connections ?? 0) <= 1, JSON.stringify(hits()));
    await first.close();
    ew.world.reset();
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses, ew.another({}, { cache })));
    assert.deepEqual(hits(), {});
  });

  test('Postfix connection rate limit: refused connections wait for a back-off, no address is lost', async (t) => {
    const { dw, ew } = await scenario({ connectionRateLimit: { max: 4, perMs: 400 } }, {}, { addresses: 60 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
  });

  test('Postfix recipient rate limit: 450 4.7.1 "too many recipients" is never a verdict', async (t) => {
    const { dw, ew, hits } = await scenario({ recipientRateLimit: { max: 25, perMs: 300 } }, {}, { addresses: 60 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
    assert.ok((hits().recipient_rate ?? 0) > 0, 'the limit was reached (the test would prove nothing otherwise)');
  });

  test('Postfix recipient limit and Exim recipients_max: 452 4.5.3 teaches the limit, the rest go in later transactions', async (t) => {
    for (const defences of [{ recipientLimit: 5 }, { recipientsMax: 5 }]) {
      // A host that counts errors per session only: groups are then large enough to meet the limit.
      const { dw, ew, hits } = await scenario(defences, { transactionErrorBudget: null }, { addresses: 40, unknownShare: 0.05 });
      t.after(() => ew.close());
      assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
      const limitHits = (hits().recipient_limit ?? 0) + (hits().recipients_max ?? 0);
      assert.ok(limitHits > 0 && limitHits <= 2 * 40, JSON.stringify(hits()));
      const perTransaction = ew.world.recorder
        .sessions(dw.host)
        .flatMap((s) => s.commands.map((c) => c.command).join('\n').split(/^MAIL FROM:.*$/m).slice(1))
        .map((tx) => tx.split('\n').filter((c) => c.startsWith('RCPT')).length);
      // The sessions under way when the limit was first met (two at most) each sent one group too large; none after.
      assert.ok(perTransaction.filter((n) => n > 5).length <= ew.config.maxSessionsPerMx, `recipients per transaction: ${perTransaction.join(' ')}`);
    }
  });

  test('Exchange tarpit: every held-back 550 5.1.1 is awaited and read, and nothing else is set off', async (t) => {
    const { dw, ew, hits } = await scenario({ tarpit: { delayMs: 150 } }, {}, { addresses: 40 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
    const unknown = dw.addresses.filter((a) => ew.world.expectedVerdict(a) === 'UNDELIVERABLE_NO_MAILBOX').length;
    // Each unknown recipient is tarpitted once (plus the catch-all probe): none asked twice.
    assert.ok((hits().tarpit ?? 0) <= unknown + 1, JSON.stringify(hits()));
  });

  test('Sendmail BadRcptThrottle and MAXHELOCOMMANDS: both are learnt from the first slowed replies, the next batch keeps under them', async (t) => {
    const cache = createMemoryFactsCache(systemClock);
    const { dw, ew, hits } = await scenario({ badRcptThrottle: { after: 5, sleepMs: 250 }, greetingThrottle: { after: 3, sleepMs: 250 } }, {}, { addresses: 50 });
    t.after(() => ew.close());
    const first = ew.another({}, { cache });
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses, first));
    await first.close();
    ew.world.reset();
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses, ew.another({}, { cache })));
    assert.deepEqual(hits(), {});
  });

  test('a host whose banner names Sendmail is never sent a third greeting in a session', async (t) => {
    const dw = defendedWorld({ greetingThrottle: { after: 3, sleepMs: 250 } }, { addresses: 60, unknownShare: 0.05 });
    const host = dw.spec.hosts[0];
    if (host) host.greeting = 'mx.defended.test ESMTP Sendmail 8.17.1/8.17.1';
    const ew = await startEngineWorld(dw.spec, { ...FAST, ...PATIENT });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
    assert.deepEqual(ew.world.recorder.limitHits(dw.host), {});
  });

  test('Exim smtp_accept_max_nonmail: one EHLO per message is free, so the engine never reaches it', async (t) => {
    const { dw, ew, hits } = await scenario({ maxNonmail: 3 }, {}, { addresses: 60, unknownShare: 0.05 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
    assert.deepEqual(hits(), {});
  });

  test('Exim ACL delay on unknown recipients: the delayed rejections are the answers, awaited', async (t) => {
    const { dw, ew } = await scenario({ unknownRecipientDelayMs: 150 }, {}, { addresses: 30 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
  });

  test('any server: a 421 or a silent close in the middle of a pipelined group loses nothing', async (t) => {
    for (const how of ['421', 'close'] as const) {
      const { dw, ew, hits } = await scenario({ dropMidGroup: { afterRcpts: 5, how, sessions: 2 } }, {}, { addresses: 40 });
      t.after(() => ew.close());
      assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
      assert.ok((hits().dropped_mid_group ?? 0) >= 1);
    }
  });

  test('any server: 451 4.7.1 "try again later" throttling is never a verdict', async (t) => {
    const { dw, ew } = await scenario({ throttle: { afterRcpts: 12, reply: '451 4.7.1 Too many recipients, try again later' } }, {}, { addresses: 40 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
  });

  test("Gmail's \"receiving mail at a rate\" under 550 5.2.1 is that mailbox's answer: TRANSIENT with a retry window after one ask, the host is not slowed", async (t) => {
    // The reply table reads this reply as about the recipient (row recipient-receiving-too-fast):
    // that address is asked again later, by a recheck; the host's other recipients go on as before.
    const reply = '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.';
    const { dw, ew, hits } = await scenario({ throttle: { afterRcpts: 12, reply } }, {}, { addresses: 40 });
    t.after(() => ew.close());
    const results = await verifyAll(ew, dw.addresses);
    const busy = dw.addresses.filter((a) => results.get(a)?.envelope.reasons[0] === 'temporary_failure');
    assert.ok(busy.length > 0, 'the host did answer so (the test would prove nothing otherwise)');
    for (const address of busy) {
      const r = results.get(address);
      assert.equal(r?.envelope.verdict, 'TRANSIENT', address);
      assert.notEqual(r?.envelope.retry, null, address);
      assert.equal(r?.attempts, 1, `${address} was asked once, not put back`);
    }
    const others = dw.addresses.filter((a) => !busy.includes(a));
    assertAllRight(ew, others, new Map(others.map((a) => [a, results.get(a) as EngineResult])));
    // Each such reply ended one address (the catch-all probe may have drawn one too): none was asked again.
    assert.ok((hits().throttled ?? 0) <= busy.length + 1, `${JSON.stringify(hits())} for ${busy.length} busy mailboxes`);
  });

  test('a host that throttles part of each session: the addresses it put back keep their attempts (one ask each, the one that was answered)', async (t) => {
    const { dw, ew, hits } = await scenario({ throttle: { afterRcpts: 12, reply: '451 4.7.1 Too many recipients, try again later' } }, {}, { addresses: 40 });
    t.after(() => ew.close());
    const results = await verifyAll(ew, dw.addresses);
    assertAllRight(ew, dw.addresses, results);
    assert.ok((hits().throttled ?? 0) > 0, 'the host did throttle (the test would prove nothing otherwise)');
    const asked = dw.addresses.map((a) => `${a}: ${results.get(a)?.attempts}`).filter((line) => !line.endsWith(': 1'));
    assert.deepEqual(asked, [], 'every address was asked and answered once; being put back is no attempt');
  });

  test('a host that throttles past the bound leaves its unasked addresses recheck_scheduled (host_throttled), never TRANSIENT', async (t) => {
    const { dw, ew, hits } = await scenario({ throttle: { afterRcpts: 0, reply: '450 4.7.1 Error: too many recipients from 127.0.0.1' } }, { hostThrottleBoundMs: 400 }, { addresses: 12 });
    t.after(() => ew.close());
    const results = await verifyAll(ew, dw.addresses);
    assert.ok((hits().throttled ?? 0) > 0, 'the host did throttle');
    for (const address of dw.addresses) {
      const e = results.get(address)?.envelope;
      assert.deepEqual(
        [e?.status, e?.outcome, e?.decision, e?.verdict, e?.reasons[0], e?.billing.disposition],
        ['recheck_scheduled', 'non_verdict', 'recheck_later', null, 'host_throttled', 'released'],
        address,
      );
      assert.notEqual(e?.retry, null, `${address} has a retry window`);
      assert.equal(results.get(address)?.attempts, 0, `${address} was never answered about itself`);
    }
  });

  test('any server: a 250 before the greeting is skipped, and the session goes on one command at a time', async (t) => {
    const { dw, ew } = await scenario({ unsolicited: 'before_banner' }, {}, { addresses: 20 });
    t.after(() => ew.close());
    assertAllRight(ew, dw.addresses, await verifyAll(ew, dw.addresses));
  });

  test('any server: an extra 250 inside a pipelined group is caught, never read as the catch-all probe being accepted', async (t) => {
    const { dw, ew, hits } = await scenario({ unsolicited: 'in_pipelined_group' }, {}, { addresses: 20 });
    t.after(() => ew.close());
    const results = await verifyAll(ew, dw.addresses);
    assert.ok(![...results.values()].some((r) => r.envelope.verdict === 'CATCH_ALL'), 'no CATCH_ALL billed');
    assertAllRight(ew, dw.addresses, results);
    // Each session already under way (two at most) may have sent one pipelined group; later ones go one command at a time.
    assert.ok((hits().unsolicited ?? 0) <= ew.config.maxSessionsPerMx, JSON.stringify(hits()));
  });
});

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defaultWorld } from '../../src/mailworld/index.js';
import type { EngineResult, PublicVerdict, ReasonCode } from '../../src/core/types.js';
import { startEngineWorld, type EngineWorld } from './world-engine.js';

/**
 * Hostile and broken servers: each must end (the per-test timeout is the bound), without a
 * crash, in the non-verdict the world's truth names. Timeouts are 600 ms per SMTP step.
 */
const HOSTILE: Array<[email: string, verdict: PublicVerdict, reason: ReasonCode, what: string]> = [
  ['alice@tarpit.test', 'TRANSIENT', 'smtp_timeout', 'accepts TCP, never sends a banner'],
  ['alice@slow.test', 'TRANSIENT', 'smtp_timeout', 'banner after 1.5 s, past the step timeout'],
  ['alice@trickle.test', 'TRANSIENT', 'smtp_timeout', 'banner trickles at 40 bytes/s'],
  ['alice@dropped.test', 'TRANSIENT', 'connection_dropped', 'drops the connection at RCPT'],
  ['alice@endless.test', 'TRANSIENT', 'smtp_protocol_error', 'EHLO reply that never ends'],
  ['alice@huge.test', 'TRANSIENT', 'smtp_protocol_error', '4 MiB EHLO reply'],
  ['alice@garbled.test', 'TRANSIENT', 'smtp_protocol_error', 'invalid reply codes'],
  ['alice@refused.test', 'TRANSIENT', 'connection_refused', 'nothing listens'],
  ['alice@loopback-unserved.test', 'TRANSIENT', 'connection_refused', 'MX on a loopback address where nothing listens'],
  ['alice@blocked-connect.test', 'UNKNOWN', 'probe_blocked', '554 5.7.1 banner'],
  ['x@cname-loop.test', 'TRANSIENT', 'dns_servfail', 'CNAME loop'],
  ['x@dns-timeout.test', 'TRANSIENT', 'dns_timeout', 'DNS never answers'],
];

describe('hostile servers end in bounded time with the right non-verdict', () => {
  let ew: EngineWorld;
  const results = new Map<string, EngineResult>();

  before(async () => {
    ew = await startEngineWorld(defaultWorld());
    await ew.engine.verifyMany(
      HOSTILE.map(([email]) => email),
      (result) => {
        results.set(result.input, result);
      },
    );
  });
  after(() => ew.close());

  for (const [email, verdict, reason, what] of HOSTILE) {
    test(`${what}: ${email} is ${verdict} (${reason})`, () => {
      const result = results.get(email);
      assert.ok(result);
      assert.equal(result.envelope.verdict, verdict);
      assert.equal(result.envelope.verdict, ew.world.expectedVerdict(email));
      assert.equal(result.envelope.reasons[0], reason);
      assert.equal(result.envelope.outcome, 'non_verdict');
      assert.deepEqual(result.envelope.billing, { disposition: 'released', credits: 0 });
    });
  }

  test('a dropped session is retried once, then given up', () => {
    const sessions = ew.world.recorder.sessions('mx.drop.test');
    assert.equal(sessions.length, 2);
    for (const session of sessions) {
      const last = session.commands.at(-1);
      assert.ok(last?.command.startsWith('RCPT TO:') && last.replyCode === null, 'dropped at RCPT, unanswered');
    }
  });

  test('a broken STARTTLS handshake is retried in plaintext (opportunistic TLS) and gives the mailbox verdict', async () => {
    const result = await ew.engine.verify('alice@tls-broken.test');
    assert.equal(result.envelope.verdict, 'DELIVERABLE');
    assert.equal(result.envelope.verdict, ew.world.expectedVerdict('alice@tls-broken.test'));
    const sessions = ew.world.recorder.sessions('mx.tlsfail.test');
    assert.ok(sessions.some((s) => s.commands.some((c) => c.command.toUpperCase() === 'STARTTLS')));
    assert.ok(sessions.some((s) => !s.commands.some((c) => c.command.toUpperCase() === 'STARTTLS')));
  });

  test(`a domain with thousands of MX records is probed at its preferred host`, async () => {
    const result = await ew.engine.verify('alice@big-mx.test');
    assert.equal(result.envelope.verdict, 'DELIVERABLE');
    assert.equal(result.mxHost, 'mx0000.big-mx.test');
  });

  test('a refused first MX passes the address to the next one', async () => {
    const result = await ew.engine.verify('alice@backup-mx.test');
    assert.equal(result.envelope.verdict, 'DELIVERABLE');
    assert.equal(result.mxHost, 'mx2.acme.test');
  });
});

describe('a server over its connection limit', () => {
  test('421 at the banner makes the engine carry on with fewer sessions, and every result is right', async (t) => {
    const spec = defaultWorld();
    const busy = spec.domains.find((d) => d.name === 'busy.test');
    if (busy) busy.mailboxes = { alice: 'accept', bob: 'accept', carol: 'full' };
    const ew = await startEngineWorld(spec, { maxSessionsPerMx: 2 });
    t.after(() => ew.close());
    const addresses = ['alice', 'bob', 'carol', ...Array.from({ length: 40 }, (_, i) => `nobody${i}`)].map((l) => `${l}@busy.test`);
    const results: EngineResult[] = [];
    await ew.engine.verifyMany(addresses, (r) => {
      results.push(r);
    });
    assert.equal(results.length, addresses.length);
    for (const r of results) assert.equal(r.envelope.verdict, ew.world.expectedVerdict(r.email), r.email);
    const banners = ew.world.recorder.sessions('mx.busy.test').map((s) => s.bannerCode);
    assert.ok(banners.includes(421), `a second session met the limit: ${banners.join(',')}`);
    assert.ok(banners.includes(220));
  });
});

describe('MX hosts on private addresses', () => {
  test('are refused before any connection unless allowed, and the recorder proves nothing connected', async (t) => {
    const ew = await startEngineWorld(defaultWorld(), { allowPrivateMx: false });
    t.after(() => ew.close());
    for (const email of ['alice@acme.test', 'alice@private-mx.test', 'alice@linklocal-mx.test', 'alice@ipv6-loopback-mx.test', 'alice@loopback-unserved.test']) {
      const result = await ew.engine.verify(email);
      assert.equal(result.envelope.verdict, 'UNKNOWN', email);
      assert.deepEqual(result.envelope.reasons, ['private_mx_refused'], email);
      assert.equal(result.envelope.outcome, 'non_verdict');
    }
    assert.equal(ew.world.recorder.sessionCount(), 0);
  });
});

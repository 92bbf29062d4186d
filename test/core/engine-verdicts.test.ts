import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defaultWorld, type DefaultWorld } from '../../src/mailworld/index.js';
import type { EngineResult, PublicVerdict } from '../../src/core/types.js';
import { startEngineWorld, type EngineWorld } from './world-engine.js';

/** defaultWorld plus what the verdict table still needs: a typo domain, UTF-8 mailboxes, a server without SMTPUTF8 or PIPELINING. */
function verdictWorld(): DefaultWorld {
  const spec = defaultWorld();
  spec.hosts.push({ name: 'mx.ascii-only.test', smtputf8: false }, { name: 'mx.nopipe.test', pipelining: false });
  spec.domains.push(
    { name: 'gmial.com', mx: [{ host: 'mx2.acme.test', preference: 10 }], mailboxes: { bob: 'accept' } },
    { name: 'eai.test', mx: [{ host: 'mx2.acme.test', preference: 10 }], mailboxes: { 'josé': 'accept' } },
    { name: 'ascii-only.test', mx: [{ host: 'mx.ascii-only.test', preference: 10 }], mailboxes: { 'josé': 'accept', jose: 'accept' } },
    { name: 'nopipe.test', mx: [{ host: 'mx.nopipe.test', preference: 10 }], mailboxes: { alice: 'accept', info: 'accept' } },
  );
  return spec;
}

/** Rows of docs/design.md §5 a mail world produces, each through real DNS and SMTP traffic. */
const ROWS: Array<[email: string, verdict: PublicVerdict, reason: string]> = [
  ['alice@acme.test', 'DELIVERABLE', 'smtp_rcpt_accepted'],
  ['nobody@acme.test', 'UNDELIVERABLE_NO_MAILBOX', 'mailbox_not_found'],
  ['former.employee@acme.test', 'UNDELIVERABLE_NO_MAILBOX', 'mailbox_disabled'],
  ['x@gone.test', 'UNDELIVERABLE_NO_MAIL_SERVER', 'nxdomain'],
  ['x@nullmx.test', 'UNDELIVERABLE_NO_MAIL_SERVER', 'null_mx'],
  ['x@no-mail.test', 'UNDELIVERABLE_NO_MAIL_SERVER', 'no_mx_no_a'],
  ['anyone@catchall.test', 'CATCH_ALL', 'catch_all_domain'],
  ['full.inbox@acme.test', 'MAILBOX_FULL', 'mailbox_full'],
  ['over.quota@acme.test', 'MAILBOX_FULL', 'mailbox_full'],
  ['info@acme.test', 'ROLE', 'role_account'],
  ['grey.listed@acme.test', 'GREYLISTED', 'greylisted'],
  ['temp.failure@acme.test', 'TRANSIENT', 'temporary_failure'],
  ['x@servfail.test', 'TRANSIENT', 'dns_servfail'],
  ['x@dns-timeout.test', 'TRANSIENT', 'dns_timeout'],
  ['blocked.probe@acme.test', 'UNKNOWN', 'probe_blocked'],
  ['someone@ymail-like.test', 'UNKNOWN_WEBMAIL', 'webmail_accepts_all'],
  ['john@a-only.test', 'DELIVERABLE', 'smtp_rcpt_accepted'],
  ['alice@alias.test', 'DELIVERABLE', 'smtp_rcpt_accepted'],
  ['alice@backup-mx.test', 'DELIVERABLE', 'smtp_rcpt_accepted'],
  ['alice@big-mx.test', 'DELIVERABLE', 'smtp_rcpt_accepted'],
  ['jane@google-hosted.test', 'DELIVERABLE', 'smtp_rcpt_accepted'],
  ['alice@nopipe.test', 'DELIVERABLE', 'smtp_rcpt_accepted'],
  ['josé@eai.test', 'DELIVERABLE', 'smtp_rcpt_accepted'],
];

describe('engine verdicts through real DNS and SMTP on loopback', () => {
  let ew: EngineWorld;
  const results = new Map<string, EngineResult>();

  before(async () => {
    ew = await startEngineWorld(verdictWorld());
    await ew.engine.verifyMany(
      ROWS.map(([email]) => email),
      (result) => {
        results.set(result.input, result);
      },
    );
  });
  after(() => ew.close());

  for (const [email, verdict, reason] of ROWS) {
    test(`${email} is ${verdict} (${reason}), as the world's truth says`, () => {
      const result = results.get(email);
      assert.ok(result, 'a result was reported');
      assert.equal(result.envelope.verdict, verdict);
      assert.equal(result.envelope.verdict, ew.world.expectedVerdict(email));
      assert.ok(result.envelope.reasons.includes(reason as never), `reasons: ${result.envelope.reasons.join(',')}`);
    });
  }

  test('provider family comes from the MX host names, and is null without MX hosts', () => {
    assert.equal(results.get('jane@google-hosted.test')?.envelope.provider_family, 'google');
    assert.equal(results.get('someone@ymail-like.test')?.envelope.provider_family, 'yahoo');
    assert.equal(results.get('alice@acme.test')?.envelope.provider_family, 'other');
    assert.equal(results.get('x@nullmx.test')?.envelope.provider_family, null);
    assert.equal(results.get('x@nullmx.test')?.providerFamily, 'none');
  });

  test('a typo domain adds possible_typo and didYouMean; a rejected address there asks to enrich first', async () => {
    const deliverable = await ew.engine.verify('bob@gmial.com');
    assert.equal(deliverable.envelope.verdict, 'DELIVERABLE');
    assert.equal(deliverable.envelope.decision, 'send');
    assert.equal(deliverable.didYouMean, 'bob@gmail.com');
    assert.ok(deliverable.envelope.reasons.includes('possible_typo'));
    const missing = await ew.engine.verify('nobody@gmial.com');
    assert.equal(missing.envelope.verdict, 'UNDELIVERABLE_NO_MAILBOX');
    assert.equal(missing.envelope.decision, 'enrich_first');
    assert.equal(missing.legacy.didYouMean, 'bob@gmail.com'.replace('bob', 'nobody'));
  });

  test('a UTF-8 local part to a server without SMTPUTF8 is a non-verdict that says so', async () => {
    const eai = await ew.engine.verify('josé@ascii-only.test');
    assert.equal(eai.envelope.verdict, 'UNKNOWN');
    assert.deepEqual(eai.envelope.reasons, ['smtputf8_not_supported']);
    assert.equal((await ew.engine.verify('jose@ascii-only.test')).envelope.verdict, 'DELIVERABLE');
  });

  test('the UTF-8 address was sent with SMTPUTF8 on MAIL FROM (RFC 6531)', () => {
    const mails = ew.world.recorder
      .sessions('mx2.acme.test')
      .flatMap((s) => s.commands.map((c) => c.command))
      .filter((c) => c.startsWith('MAIL FROM'));
    assert.ok(mails.some((c) => c.endsWith(' SMTPUTF8')), mails.join('\n'));
  });

  test('probes use the configured HELO name and sender, never DATA', () => {
    const commands = ew.world.recorder.sessions().flatMap((s) => s.commands.map((c) => c.command.toUpperCase()));
    assert.ok(commands.some((c) => c === 'EHLO PROBE.PRESEND.TEST'));
    for (const c of commands.filter((c) => c.startsWith('MAIL FROM'))) assert.match(c, /^MAIL FROM:<PROBE@PRESEND\.TEST>/);
    assert.equal(commands.filter((c) => c === 'DATA').length, 0);
  });

  test('STARTTLS is used when the server offers it', () => {
    const tlsSessions = ew.world.recorder.sessions('mx1.acme.test').filter((s) => s.commands.some((c) => c.command.toUpperCase() === 'STARTTLS'));
    assert.ok(tlsSessions.length > 0);
  });

  test('a greylisted address is accepted on recheck after the greylisting delay', async () => {
    const first = await ew.engine.verify('grey.listed@acme.test');
    assert.equal(first.envelope.verdict, 'GREYLISTED');
    assert.equal(first.envelope.status, 'recheck_scheduled');
    assert.equal(first.envelope.retry?.affinity_required, true);
    // Kept: the greylisting delay passing on the mail world's clock is the behaviour under test.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await ew.engine.verify('grey.listed@acme.test');
    assert.equal(again.envelope.verdict, 'DELIVERABLE');
  });

  test('results carry the MX host that answered and the number of attempts', () => {
    const alice = results.get('alice@backup-mx.test');
    assert.equal(alice?.mxHost, 'mx2.acme.test');
    assert.ok((alice?.attempts ?? 0) >= 1);
    assert.equal(results.get('x@gone.test')?.attempts, 0);
  });
});

describe('engine verdicts from lists', () => {
  test('operator lists give SPAMTRAP, BLACKLISTED and UNDELIVERABLE_BOUNCED before any probe', async (t) => {
    const ew = await startEngineWorld(defaultWorld(), {}, {}, {
      lists: { isSpamtrap: (e) => e === 'trap@acme.test', isBlocklistedDomain: (d) => d === 'mx.catchall.test' },
    });
    t.after(() => ew.close());
    const bounced = { isHardBounced: (e: string) => e === 'bob.smith@acme.test' };
    assert.equal((await ew.engine.verify('trap@acme.test')).envelope.verdict, 'SPAMTRAP');
    assert.equal((await ew.engine.verify('anyone@catchall.test')).envelope.verdict, 'BLACKLISTED', 'blocklisted MX host');
    assert.equal((await ew.engine.verify('bob.smith@acme.test', { lists: bounced })).envelope.verdict, 'UNDELIVERABLE_BOUNCED');
    assert.equal((await ew.engine.verify('spamtrap@acme.test')).envelope.verdict, 'RISKY_SPAMTRAP');
    assert.equal(ew.world.recorder.rcptCount(), 0, 'no RCPT was needed for any of them');
  });

  test('a disposable domain is DISPOSABLE without DNS or SMTP', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    const queries = ew.world.dns.queries.udp + ew.world.dns.queries.tcp;
    const result = await ew.engine.verify('someone@mailinator.com');
    assert.equal(result.envelope.verdict, 'DISPOSABLE');
    assert.equal(result.envelope.decision, 'suppress');
    assert.equal(result.envelope.evidence_class, 'domain_list');
    assert.equal(ew.world.dns.queries.udp + ew.world.dns.queries.tcp, queries);
  });

  test('an invalid address is rejected by syntax, with no verdict and no billing', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    const result = await ew.engine.verify('john@[192.0.2.1]');
    assert.equal(result.envelope.status, 'rejected');
    assert.equal(result.envelope.verdict, null);
    assert.deepEqual(result.envelope.reasons, ['invalid_syntax', 'domain_literal']);
  });

  test('without a HELO name and sender, the engine answers what DNS can and refuses to probe', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    const engine = ew.another({ heloName: null, mailFrom: null });
    assert.equal((await engine.verify('x@gone.test')).envelope.verdict, 'UNDELIVERABLE_NO_MAIL_SERVER');
    const probeNeeded = await engine.verify('alice@acme.test');
    assert.equal(probeNeeded.envelope.verdict, 'UNKNOWN');
    assert.deepEqual(probeNeeded.envelope.reasons, ['probe_not_configured']);
    assert.equal(ew.world.recorder.sessionCount(), 0, 'no SMTP session was opened');
  });
});

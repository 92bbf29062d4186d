import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { PublicVerdict } from '../../src/core/types.js';
import { benchWorld, defaultWorld, startMailWorld } from '../../src/mailworld/index.js';
import { SmtpTalk } from './smtp-talk.js';

const DEFAULT_TRUTH: Array<[string, PublicVerdict]> = [
  ['alice@acme.test', 'DELIVERABLE'],
  ['nobody@acme.test', 'UNDELIVERABLE_NO_MAILBOX'],
  ['former.employee@acme.test', 'UNDELIVERABLE_NO_MAILBOX'],
  ['info@acme.test', 'ROLE'],
  ['full.inbox@acme.test', 'MAILBOX_FULL'],
  ['over.quota@acme.test', 'MAILBOX_FULL'],
  ['grey.listed@acme.test', 'DELIVERABLE'],
  ['blocked.probe@acme.test', 'UNKNOWN'],
  ['temp.failure@acme.test', 'TRANSIENT'],
  ['anyone@catchall.test', 'CATCH_ALL'],
  ['someone@ymail-like.test', 'UNKNOWN_WEBMAIL'],
  ['jane@google-hosted.test', 'DELIVERABLE'],
  ['john@a-only.test', 'DELIVERABLE'],
  ['postmaster@a-only.test', 'ROLE'],
  ['alice@backup-mx.test', 'DELIVERABLE'],
  ['alice@big-mx.test', 'DELIVERABLE'],
  ['x@nullmx.test', 'UNDELIVERABLE_NO_MAIL_SERVER'],
  ['x@no-mail.test', 'UNDELIVERABLE_NO_MAIL_SERVER'],
  ['alice@dangling-mx.test', 'UNDELIVERABLE_NO_MAIL_SERVER'],
  ['throwaway@mailinator.com', 'DISPOSABLE'],
  ['josé@acme.test', 'DELIVERABLE'],
  ['josé@legacy.test', 'UNKNOWN'],
  ['alice@legacy.test', 'DELIVERABLE'],
  ['spamtrap@acme.test', 'RISKY_SPAMTRAP'],
  ['honeypot+1@acme.test', 'RISKY_SPAMTRAP'],
  ['x@gone.test', 'UNDELIVERABLE_NO_MAIL_SERVER'],
  ['x@not-in-the-world.test', 'UNDELIVERABLE_NO_MAIL_SERVER'],
  ['x@servfail.test', 'TRANSIENT'],
  ['x@dns-timeout.test', 'TRANSIENT'],
  ['x@cname-loop.test', 'TRANSIENT'],
  ['alice@tarpit.test', 'TRANSIENT'],
  ['alice@refused.test', 'TRANSIENT'],
  ['alice@blocked-connect.test', 'UNKNOWN'],
  ['alice@private-mx.test', 'TRANSIENT'],
  ['alice@ipv6-loopback-mx.test', 'TRANSIENT'],
];

/** The verdicts a single RCPT reply can lead to, by reply code. */
const VERDICTS_OF_CODE: Record<number, PublicVerdict[]> = {
  250: ['DELIVERABLE', 'ROLE', 'CATCH_ALL', 'UNKNOWN_WEBMAIL'],
  550: ['UNDELIVERABLE_NO_MAILBOX'],
  452: ['MAILBOX_FULL'],
  552: ['MAILBOX_FULL'],
  450: ['GREYLISTED'],
  554: ['UNKNOWN'],
  451: ['TRANSIENT'],
};

describe('the truth of the default and benchmark worlds', () => {
  test('the default world covers every verdict of docs/design.md §5 a mail world can produce', async () => {
    const world = await startMailWorld(defaultWorld());
    try {
      for (const [email, verdict] of DEFAULT_TRUTH) assert.equal(world.expectedVerdict(email), verdict, email);
      const produced = new Set(defaultWorld().samples.map((s) => world.expectedVerdict(s.email)));
      for (const verdict of ['DELIVERABLE', 'UNDELIVERABLE_NO_MAILBOX', 'UNDELIVERABLE_NO_MAIL_SERVER', 'CATCH_ALL', 'MAILBOX_FULL', 'ROLE', 'DISPOSABLE', 'RISKY_SPAMTRAP', 'TRANSIENT', 'UNKNOWN', 'UNKNOWN_WEBMAIL'] as const) {
        assert.ok(produced.has(verdict), verdict);
      }
    } finally {
      await world.close();
    }
  });

  test('greylisted mailboxes are GREYLISTED when the truth is asked for the first answer', async () => {
    const world = await startMailWorld(defaultWorld(), { truth: { greylisted: 'first' } });
    try {
      assert.equal(world.expectedVerdict('grey.listed@acme.test'), 'GREYLISTED');
    } finally {
      await world.close();
    }
  });

  test('the same seed gives the same bench world, another seed another one', () => {
    const options = { domains: 4, mailboxesPerDomain: 30 };
    assert.deepEqual(benchWorld(options), benchWorld(options));
    assert.notDeepEqual(benchWorld(options).addresses, benchWorld({ ...options, seed: 7 }).addresses);
  });

  test('a bench world has every address once, each with its truth, in a realistic mix', () => {
    const world = benchWorld({ domains: 20, mailboxesPerDomain: 50, catchAllShare: 0.1 });
    assert.equal(world.addresses.length, 1000);
    assert.equal(new Set(world.addresses).size, 1000);
    assert.equal(world.hosts.length, 20);
    assert.deepEqual(Object.keys(world.truth).sort(), [...world.addresses].sort());
    const counts = new Map<PublicVerdict, number>();
    for (const verdict of Object.values(world.truth)) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
    for (const verdict of ['DELIVERABLE', 'UNDELIVERABLE_NO_MAILBOX', 'MAILBOX_FULL', 'ROLE'] as const) assert.ok((counts.get(verdict) ?? 0) > 0, verdict);
    assert.ok((counts.get('DELIVERABLE') ?? 0) > 500);
  });

  test('every bench address gets the RCPT reply its truth predicts, one session per host', async () => {
    const spec = benchWorld({ domains: 5, mailboxesPerDomain: 40, commandLatencyMs: 2, maxConnections: 1, truth: { greylisted: 'first' }, seed: 3 });
    const world = await startMailWorld(spec, { truth: { greylisted: 'first' } });
    try {
      for (const host of spec.hosts) {
        const domain = host.name.replace(/^mx\./, '');
        const addresses = spec.addresses.filter((a) => a.endsWith(`@${domain}`));
        const talk = await SmtpTalk.open(world.hostIp(host.name), world.smtpPort);
        assert.equal((await talk.read()).code, 220);
        await talk.command('EHLO probe.presend.test');
        await talk.command('MAIL FROM:<probe@presend.test>');
        for (const address of addresses) {
          const reply = await talk.command(`RCPT TO:<${address}>`);
          const truth = spec.truth[address];
          assert.equal(world.expectedVerdict(address), truth);
          assert.ok(truth && VERDICTS_OF_CODE[reply.code]?.includes(truth), `${address}: ${reply.text} vs ${truth}`);
        }
        await talk.command('QUIT');
        talk.close();
      }
      assert.equal(world.recorder.sessionCount(), 5);
      assert.equal(world.recorder.rcptCount(), 200);
      assert.equal(world.recorder.maxConcurrent(), 1);
    } finally {
      await world.close();
    }
  });
});

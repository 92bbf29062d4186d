/**
 * Verdicts that explain themselves (docs/evidence.md), in the engine: through a mail world's real
 * DNS and SMTP on loopback, each check's evidence names its MX hosts, the conversation as its
 * address saw it (a pipelined group gives each address its own RCPT, shared lines once), the
 * catch-all probe and the reply-table row that decided; it keeps no proxy credentials and stays
 * within its bounds.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defaultWorld, startSocksProxy, type SocksProxy } from '../../src/mailworld/index.js';
import type { EngineResult } from '../../src/core/types.js';
import type { Evidence } from '../../src/core/evidence/evidence.js';
import { CheckEvidence } from '../../src/core/evidence/recorder.js';
import { SessionTranscript, attributeGroup } from '../../src/core/evidence/transcript.js';
import { parseReplyText } from '../../src/core/replies/parse.js';
import { EVIDENCE_LIMITS } from '../../src/core/evidence/evidence.js';
import { startEngineWorld, type EngineWorld } from './world-engine.js';

const evidenceOf = (result: EngineResult): Evidence => {
  assert.ok(result.evidence, `no evidence for ${result.input}`);
  return result.evidence;
};
const rcptLines = (e: Evidence): string[] => e.transcript.filter((l) => l.dir === 'C' && l.text.startsWith('RCPT TO')).map((l) => l.text);

describe('evidence through real DNS and SMTP', () => {
  let ew: EngineWorld;
  before(async () => {
    ew = await startEngineWorld(defaultWorld());
  });
  after(() => ew.close());

  test('a single check: its MX hosts in order, the conversation, the rule that decided, the DNS answer looked up then cached', async () => {
    const first = evidenceOf(await ew.engine.verify('alice@acme.test', { explain: true }));
    assert.deepEqual(
      first.mxHosts?.map((h) => [h.name, h.preference]),
      [
        ['mx1.acme.test', 10],
        ['mx2.acme.test', 20],
      ],
    );
    assert.match(first.mxHosts?.[0]?.address ?? '', /^127\.\d+\.\d+\.\d+$/, 'the address the preferred host was reached at');
    assert.equal(first.mxHosts?.[1]?.address, undefined, 'the backup host was not needed');
    const texts = first.transcript.map((l) => `${l.dir} ${l.text}`);
    assert.ok(texts.some((t) => /^- connected to [\d.]+:\d+/.test(t)), texts.join('\n'));
    assert.ok(texts.some((t) => t.startsWith('S 220')), 'the banner');
    assert.ok(texts.some((t) => t.startsWith('C EHLO ')), 'EHLO');
    assert.ok(texts.some((t) => t === 'C STARTTLS') && texts.includes('- TLS established'), 'STARTTLS (mx1 offers it)');
    assert.ok(texts.some((t) => /^C MAIL FROM:<.+>/.test(t)), 'MAIL FROM is ours and shown');
    assert.deepEqual(rcptLines(first), ['RCPT TO:<alice@acme.test>']);
    assert.ok(first.transcript.every((l) => l.host === 'mx1.acme.test'));
    assert.ok(first.transcript.filter((l) => l.dir === 'S').every((l) => typeof l.tookMs === 'number'), 'replies carry their timing');
    assert.equal(first.decidedBy?.step, 'rcpt');
    assert.equal(first.decidedBy?.reply.code, 250);
    assert.equal(first.decidedBy?.rule?.class, 'accepted');
    assert.equal(first.facts[0]?.key, 'mx:acme.test');
    assert.equal(first.facts[0]?.source, 'lookup');
    assert.equal(typeof first.facts[0]?.tookMs, 'number');

    const again = evidenceOf(await ew.engine.verify('bob.smith@acme.test', { explain: true }));
    assert.equal(again.facts[0]?.source, 'cache', 'the MX answer came from the facts cache');
    assert.ok((again.facts[0]?.ageMs ?? -1) >= 0);
  });

  test('a refusal names its reply-table row', async () => {
    const e = evidenceOf(await ew.engine.verify('nobody@acme.test', { explain: true }));
    assert.equal(e.decidedBy?.reply.code, 550);
    assert.equal(e.decidedBy?.rule?.class, 'no_mailbox');
    assert.ok(e.decidedBy?.rule?.id);
  });

  test('a pipelined group: each address gets its own RCPT and reply, and the shared lines', async () => {
    const engine = ew.another();
    const results = new Map<string, EngineResult>();
    const emails = ['alice@acme.test', 'nobody@acme.test', 'former.employee@acme.test', 'bob.smith@acme.test', 'full.inbox@acme.test'];
    await engine.verifyMany(emails, (r) => void results.set(r.email, r), { explain: true });
    const mailSentAt: number[] = [];
    for (const email of emails) {
      const e = evidenceOf(results.get(email) as EngineResult);
      assert.deepEqual(rcptLines(e), [`RCPT TO:<${email}>`], `${email} sees only its own RCPT`);
      const own = e.transcript.findIndex((l) => l.text === `RCPT TO:<${email}>`);
      const replies = e.transcript.filter((l) => l.dir === 'S' && l.atMs >= (e.transcript[own]?.atMs ?? 0));
      assert.ok(replies.some((l) => l.text.startsWith(String(e.decidedBy?.reply.code))), `${email}: its reply ${e.decidedBy?.reply.code} is in its transcript`);
      assert.equal(e.transcript.filter((l) => l.text.startsWith('MAIL FROM')).length >= 1, true, 'MAIL FROM shared');
      assert.equal(e.transcript.filter((l) => l.text.startsWith('connected to')).length, 1, 'the session opening is shown once');
      const mail = e.transcript.find((l) => l.text.startsWith('MAIL FROM'));
      mailSentAt.push(Date.parse(e.startedAt) + (mail?.atMs ?? NaN));
    }
    // Five addresses, fewer MAIL FROMs: some rode one pipelined transaction, and each was given its share of it.
    assert.ok(new Set(mailSentAt).size < emails.length, `MAIL FROM sent at ${mailSentAt.join(', ')}`);
    assert.equal(evidenceOf(results.get('nobody@acme.test') as EngineResult).decidedBy?.reply.code, 550);
    assert.equal(evidenceOf(results.get('full.inbox@acme.test') as EngineResult).decidedBy?.rule?.class, 'full');
  });

  test('the catch-all probe: which address was asked and what it answered', async () => {
    const e = evidenceOf(await ew.engine.verify('anyone@catchall.test', { explain: true }));
    assert.ok(e.catchAll);
    assert.match(e.catchAll.address ?? '', /^presend-[0-9a-f]+@catchall\.test$/);
    assert.equal(e.catchAll.result, 'accepts_any_address');
    assert.equal(e.catchAll.reply?.code, 250);
    assert.equal(e.catchAll.source, 'probe');
    const later = evidenceOf(await ew.engine.verify('someone.else@catchall.test', { explain: true }));
    assert.equal(later.catchAll?.source, 'cache');
    assert.ok((later.catchAll?.ageMs ?? -1) >= 0);
  });

  test('no MX: the DNS answer is the evidence; without explain nothing is recorded', async () => {
    const e = evidenceOf(await ew.engine.verify('x@gone.test', { explain: true }));
    assert.equal(e.mxHosts, null);
    assert.equal(e.facts[0]?.summary, 'nxdomain');
    assert.deepEqual(e.transcript, []);
    assert.match(e.outcome, /without an SMTP probe: nxdomain/);
    assert.equal((await ew.engine.verify('alice@acme.test')).evidence, undefined);
    const quiet: EngineResult[] = [];
    await ew.engine.verifyMany(['alice@acme.test', 'not an address'], (r) => void quiet.push(r));
    assert.ok(quiet.every((r) => r.evidence === undefined));
  });

  test('a failover is told: the refused host, then the one that answered', async () => {
    const e = evidenceOf(await ew.engine.verify('alice@backup-mx.test', { explain: true }));
    assert.deepEqual(e.mxHosts?.map((h) => h.name), ['mx.refused.test', 'mx2.acme.test']);
    assert.ok(e.notes.some((n) => n.startsWith('mx.refused.test: could not open a session')), e.notes.join('\n'));
    assert.ok(e.transcript.some((l) => l.host === 'mx2.acme.test' && l.text === 'RCPT TO:<alice@backup-mx.test>'));
  });
});

describe('evidence keeps no secrets', () => {
  let ew: EngineWorld;
  let proxy: SocksProxy;
  before(async () => {
    proxy = await startSocksProxy({ auth: { username: 'probe-user', password: 'pr0xy-s3cret' } });
    ew = await startEngineWorld(defaultWorld(), { smtpProxy: `socks5://probe-user:pr0xy-s3cret@127.0.0.1:${proxy.port}` });
  });
  after(async () => {
    await ew.close();
    await proxy.close();
  });

  test('a check through an authenticated proxy names the proxy host, never its credentials', async () => {
    const result = await ew.engine.verify('alice@acme.test', { explain: true });
    const e = evidenceOf(result);
    assert.equal(result.envelope.verdict, 'DELIVERABLE');
    assert.ok(proxy.connects.length > 0, 'the check went through the proxy');
    const json = JSON.stringify(e);
    assert.ok(!json.includes('pr0xy-s3cret') && !json.includes('probe-user'), json);
    assert.ok(e.transcript.some((l) => l.text.includes('through the proxy 127.0.0.1')));
    assert.ok(!json.includes('AUTH'), 'the prober never authenticates');
  });
});

describe('evidence is bounded', () => {
  test('lines, characters and notes stop at their caps; what is left out is counted', () => {
    let now = 1_000;
    const e = new CheckEvidence(() => now, 'a@b.test');
    for (let i = 0; i < 500; i++) {
      now++;
      e.line({ at: now, dir: 'S', host: 'mx.test', text: `250 ${'x'.repeat(1000)}` });
      e.note(`note ${i}`);
    }
    const result = { envelope: { reasons: [] } } as unknown as EngineResult;
    const out = e.finish(result);
    assert.ok(out.transcript.length <= EVIDENCE_LIMITS.maxLines);
    assert.ok(out.transcript.every((l) => l.text.length <= EVIDENCE_LIMITS.maxLineChars));
    assert.ok(out.transcript.reduce((n, l) => n + l.text.length, 0) <= EVIDENCE_LIMITS.maxChars);
    assert.equal(out.transcript.length + out.dropped, 500);
    assert.equal(out.notes.length, EVIDENCE_LIMITS.maxNotes);
    assert.ok(JSON.stringify(out).length < 20_000);
  });
});

describe('a session\'s transcript, attributed', () => {
  test('a group of several messages: each recipient sees its own message\'s MAIL and RSET, the EHLO that ends the group, and its own RCPT', () => {
    const transcript = new SessionTranscript('mx.test', () => 100, '192.0.2.7');
    transcript.begin();
    const steps = [
      { step: 'mail', index: -1, transaction: 0 },
      { step: 'rcpt', index: 0, transaction: 0 },
      { step: 'rset', index: -1, transaction: 0 },
      { step: 'mail', index: -1, transaction: 1 },
      { step: 'rcpt', index: 1, transaction: 1 },
      { step: 'ehlo', index: -1 },
    ];
    const commands = ['MAIL FROM:<p@x.test>', 'RCPT TO:<a@x.test>', 'RSET', 'MAIL FROM:<p@x.test>', 'RCPT TO:<b@x.test>', 'EHLO probe.example'];
    transcript.groupSent(steps, commands);
    const replies = ['250 ok', '250 a ok', '250 reset 0', '250 ok', '550 b unknown', '250 mx.test'];
    steps.forEach((step, i) => transcript.groupReplied(step, parseReplyText(replies[i] ?? ''), 101));
    const [a, b] = transcript.groupBuckets(2).map((lines) => lines.map((line) => line.text));
    assert.deepEqual(a, ['MAIL FROM:<p@x.test>', 'RCPT TO:<a@x.test>', 'RSET', 'EHLO probe.example', '250 ok', '250 a ok', '250 reset 0', '250 mx.test']);
    assert.deepEqual(b, ['MAIL FROM:<p@x.test>', 'RCPT TO:<b@x.test>', 'EHLO probe.example', '250 ok', '550 b unknown', '250 mx.test']);
  });

  test('each recipient of a pipelined group gets the opening once, the shared lines and its own RCPT only', () => {
    let now = 100;
    const clock = () => now;
    const transcript = new SessionTranscript('mx.test', clock, '192.0.2.7');
    transcript.event('connected to 192.0.2.7:25 in 1 ms');
    transcript.replied(parseReplyText('220 mx.test ESMTP'));
    transcript.sent('EHLO probe.example');
    now += 2;
    transcript.replied(parseReplyText('250-mx.test\r\n250 PIPELINING'));
    const group = (recipients: string[], replies: string[]) => {
      transcript.begin();
      const steps = [{ step: 'mail', index: -1 }, ...recipients.map((_, index) => ({ step: 'rcpt', index })), { step: 'ehlo', index: -1 }];
      const commands = ['MAIL FROM:<probe@example.org>\r\n', ...recipients.map((r) => `RCPT TO:<${r}>\r\n`), 'EHLO probe.example\r\n'];
      transcript.groupSent(steps, commands);
      now += 5;
      transcript.groupReplied({ step: 'mail', index: -1 }, parseReplyText('250 ok'), now);
      replies.forEach((reply, index) => transcript.groupReplied({ step: 'rcpt', index }, parseReplyText(reply), ++now));
      transcript.groupReplied({ step: 'ehlo', index: -1 }, parseReplyText('250-mx.test\r\n250 PIPELINING'), ++now);
    };
    const a = new CheckEvidence(clock, 'a@x.test');
    const b = new CheckEvidence(clock, 'b@x.test');
    const c = new CheckEvidence(clock, 'c@x.test');
    group(['a@x.test', 'b@x.test'], ['250 ok a', '550 5.1.1 no b']);
    attributeGroup(transcript, [{ evidence: a }, { evidence: b }]);
    group(['c@x.test', 'a2@x.test'], ['250 ok c', '250 ok a2']);
    attributeGroup(transcript, [{ evidence: c }, {}]);
    const result = { envelope: { reasons: [] } } as unknown as EngineResult;
    const [ea, eb, ec] = [a, b, c].map((e) => e.finish(result)) as [Evidence, Evidence, Evidence];
    const texts = (e: Evidence) => e.transcript.map((l) => `${l.dir} ${l.text}`);
    assert.deepEqual(texts(eb), [
      '- connected to 192.0.2.7:25 in 1 ms',
      'S 220 mx.test ESMTP',
      'C EHLO probe.example',
      'S 250 mx.test (+1 lines)',
      'C MAIL FROM:<probe@example.org>',
      'C RCPT TO:<b@x.test>',
      'C EHLO probe.example',
      'S 250 ok',
      'S 550 5.1.1 no b',
      'S 250 mx.test (+1 lines)',
    ]);
    assert.ok(texts(ea).includes('S 250 ok a') && !texts(ea).some((t) => t.includes('b@x.test') || t.includes('no b')));
    assert.deepEqual(texts(ec).filter((t) => t.includes('RCPT') || t.startsWith('S 250 ok ')), ['C RCPT TO:<c@x.test>', 'S 250 ok c'], 'the second group: its own line, not the unrecorded neighbour\'s');
    assert.equal(eb.transcript.find((l) => l.text === '550 5.1.1 no b')?.tookMs, 7, 'a reply\'s time since its group was sent');
  });
});

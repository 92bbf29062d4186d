import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { classify, type AddressTraits, type Finding } from '../../src/core/classify-finding.js';
import { buildEnvelope } from '../../src/core/envelope.js';
import { parseReplyText } from '../../src/core/replies/parse.js';
import type { ProbeOutcome } from '../../src/core/smtp/dispatcher.js';
import type { PreSendDecision, PublicVerdict, EnvelopeStatus, Outcome } from '../../src/core/types.js';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const CONTEXT = { now: NOW, recheckDelayMs: 300_000 };
const PLAIN: AddressTraits = { role: false, free: false, didYouMean: null, providerFamily: 'other' };

const reply = (text: string, catchAll: boolean | null = false): Finding => ({
  kind: 'probe',
  outcome: { kind: 'reply', reply: parseReplyText(text), host: 'mx.example.test', attempts: 1 },
  catchAll,
});
type Bare<T> = T extends unknown ? Omit<T, 'host' | 'attempts'> : never;
const probe = (outcome: Bare<ProbeOutcome>): Finding => ({ kind: 'probe', outcome: { ...outcome, host: 'mx.example.test', attempts: 1 } as ProbeOutcome, catchAll: null });

/** docs/design.md §5, row by row: finding → verdict, outcome, decision, status. */
const ROWS: Array<[why: string, finding: Finding, traits: AddressTraits, verdict: PublicVerdict, outcome: Outcome, decision: PreSendDecision, status: EnvelopeStatus]> = [
  ['RCPT accepted, not catch-all', reply('250 2.1.5 OK'), PLAIN, 'DELIVERABLE', 'actionable_verdict', 'send', 'completed'],
  ['550 5.1.1', reply('550 5.1.1 user unknown'), PLAIN, 'UNDELIVERABLE_NO_MAILBOX', 'actionable_verdict', 'suppress', 'completed'],
  ['550 5.2.1 disabled', reply('550 5.2.1 mailbox disabled'), PLAIN, 'UNDELIVERABLE_NO_MAILBOX', 'actionable_verdict', 'suppress', 'completed'],
  ['NXDOMAIN', { kind: 'dns', result: 'nxdomain' }, PLAIN, 'UNDELIVERABLE_NO_MAIL_SERVER', 'actionable_verdict', 'suppress', 'completed'],
  ['null MX', { kind: 'dns', result: 'null_mx' }, PLAIN, 'UNDELIVERABLE_NO_MAIL_SERVER', 'actionable_verdict', 'suppress', 'completed'],
  ['no MX, no A', { kind: 'dns', result: 'no_mx_no_a' }, PLAIN, 'UNDELIVERABLE_NO_MAIL_SERVER', 'actionable_verdict', 'suppress', 'completed'],
  ['hard bounce list', { kind: 'list', hit: 'hard_bounced' }, PLAIN, 'UNDELIVERABLE_BOUNCED', 'actionable_verdict', 'suppress', 'completed'],
  ['random local part accepted too', reply('250 OK', true), PLAIN, 'CATCH_ALL', 'actionable_verdict', 'send_with_caution', 'completed'],
  ['452 4.2.2', reply('452 4.2.2 over quota'), PLAIN, 'MAILBOX_FULL', 'actionable_verdict', 'recheck_later', 'completed'],
  ['552 5.2.2', reply('552 5.2.2 mailbox full'), PLAIN, 'MAILBOX_FULL', 'actionable_verdict', 'recheck_later', 'completed'],
  ['disposable list', { kind: 'list', hit: 'disposable_domain' }, PLAIN, 'DISPOSABLE', 'actionable_verdict', 'suppress', 'completed'],
  ['role that exists', reply('250 OK'), { ...PLAIN, role: true }, 'ROLE', 'actionable_verdict', 'send_with_caution', 'completed'],
  ['operator trap list', { kind: 'list', hit: 'spamtrap' }, PLAIN, 'SPAMTRAP', 'actionable_verdict', 'suppress', 'completed'],
  ['trap pattern', { kind: 'list', hit: 'spamtrap_pattern' }, PLAIN, 'RISKY_SPAMTRAP', 'actionable_verdict', 'manual_review', 'completed'],
  ['domain blocklist', { kind: 'list', hit: 'blacklisted_domain' }, PLAIN, 'BLACKLISTED', 'actionable_verdict', 'suppress', 'completed'],
  ['450 greylisted', reply('450 4.7.1 greylisted, try again later'), PLAIN, 'GREYLISTED', 'non_verdict', 'recheck_later', 'recheck_scheduled'],
  ['SMTP timeout', probe({ kind: 'failure', failure: { kind: 'timeout', step: 'banner', reply: null, detail: '' } }), PLAIN, 'TRANSIENT', 'non_verdict', 'recheck_later', 'completed'],
  ['refused', probe({ kind: 'failure', failure: { kind: 'refused', step: 'connect', reply: null, detail: '' } }), PLAIN, 'TRANSIENT', 'non_verdict', 'recheck_later', 'completed'],
  ['SERVFAIL', { kind: 'dns', result: 'servfail' }, PLAIN, 'TRANSIENT', 'non_verdict', 'recheck_later', 'completed'],
  ['DNS timeout', { kind: 'dns', result: 'timeout' }, PLAIN, 'TRANSIENT', 'non_verdict', 'recheck_later', 'completed'],
  ['other 4xx', reply('451 4.3.0 temporary local problem'), PLAIN, 'TRANSIENT', 'non_verdict', 'recheck_later', 'completed'],
  ['throttled (Postfix recipient limit)', reply('452 4.5.3 Error: too many recipients'), PLAIN, 'TRANSIENT', 'non_verdict', 'recheck_later', 'completed'],
  ['Gmail rate limit under 550 5.2.1', reply('550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.'), PLAIN, 'TRANSIENT', 'non_verdict', 'recheck_later', 'completed'],
  ['quota worded in French under 552 5.1.1', reply('552 5.1.1 Boite du destinataire pleine. Recipient overquota. OFR_417 [417]'), PLAIN, 'MAILBOX_FULL', 'actionable_verdict', 'recheck_later', 'completed'],
  ['Spamhaus at RCPT', reply('554 5.7.1 blocked using zen.spamhaus.org'), PLAIN, 'UNKNOWN', 'non_verdict', 'do_not_decide', 'completed'],
  ['554 at the banner', probe({ kind: 'failure', failure: { kind: 'rejected', step: 'banner', reply: null, detail: '' } }), PLAIN, 'UNKNOWN', 'non_verdict', 'do_not_decide', 'completed'],
  ['MAIL FROM refused by policy', probe({ kind: 'mail_rejected', reply: parseReplyText('550 5.7.1 sender rejected') }), PLAIN, 'UNKNOWN', 'non_verdict', 'do_not_decide', 'completed'],
  ['private MX refused', probe({ kind: 'private_mx_refused' }), PLAIN, 'UNKNOWN', 'non_verdict', 'do_not_decide', 'completed'],
  ['no SMTPUTF8', probe({ kind: 'utf8_unsupported' }), PLAIN, 'UNKNOWN', 'non_verdict', 'do_not_decide', 'completed'],
  ['not configured', { kind: 'not_configured' }, PLAIN, 'UNKNOWN', 'non_verdict', 'do_not_decide', 'completed'],
  ['webmail accepting all', reply('250 ok'), { ...PLAIN, providerFamily: 'yahoo' }, 'UNKNOWN_WEBMAIL', 'non_verdict', 'send_with_caution', 'completed'],
];

describe('verdict table (docs/design.md §5)', () => {
  for (const [why, finding, traits, verdict, outcome, decision, status] of ROWS) {
    test(`${why} → ${verdict}, ${outcome}, ${decision}, ${status}`, () => {
      const { envelope, score, legacy } = buildEnvelope(classify(finding, traits), traits, CONTEXT);
      assert.equal(envelope.verdict, verdict);
      assert.equal(envelope.outcome, outcome);
      assert.equal(envelope.decision, decision);
      assert.equal(envelope.status, status);
      assert.equal(envelope.contract_version, 1);
      assert.equal(envelope.history, null);
      const actionable = outcome === 'actionable_verdict';
      assert.deepEqual(envelope.billing, actionable ? { disposition: 'debited', credits: 1 } : { disposition: 'released', credits: 0 });
      assert.equal(score === null, !actionable, 'score is null exactly for non-verdicts');
      assert.equal(envelope.confidence === null, !actionable, 'confidence is null exactly for non-verdicts');
      if (score !== null) assert.ok(score >= 0 && score <= 100);
      assert.equal(legacy.reason, envelope.reasons[0]);
    });
  }

  test('an address its host kept throttling past the bound: no verdict, recheck_scheduled with a retry window, nothing billed, never TRANSIENT', () => {
    const finding = probe({ kind: 'host_throttled', reply: parseReplyText('421 4.7.0 Try again later, closing connection.'), detail: 'the host kept throttling' });
    const { envelope, legacy, score } = buildEnvelope(classify(finding, PLAIN), PLAIN, CONTEXT);
    assert.deepEqual(
      [envelope.verdict, envelope.status, envelope.outcome, envelope.decision, envelope.reasons, envelope.confidence, score],
      [null, 'recheck_scheduled', 'non_verdict', 'recheck_later', ['host_throttled'], null, null],
    );
    assert.deepEqual(envelope.billing, { disposition: 'released', credits: 0 });
    assert.deepEqual(envelope.retry, { eligible_at: '2026-01-01T00:05:00.000Z', expires_at: '2026-01-02T00:05:00.000Z', affinity_required: false });
    assert.equal(legacy.result, 'unknown');
  });

  test('syntax invalid: no verdict, suppress, rejected, nothing billed', () => {
    const { envelope, legacy } = buildEnvelope(classify({ kind: 'syntax', error: 'domain_literal' }, PLAIN), PLAIN, CONTEXT);
    assert.equal(envelope.verdict, null);
    assert.equal(envelope.decision, 'suppress');
    assert.equal(envelope.status, 'rejected');
    assert.equal(envelope.outcome, 'non_verdict');
    assert.deepEqual(envelope.reasons, ['invalid_syntax', 'domain_literal']);
    assert.equal(envelope.evidence_class, 'syntax');
    assert.deepEqual(envelope.billing, { disposition: 'released', credits: 0 });
    assert.equal(legacy.result, 'undeliverable');
  });

  test('a throttled reply is TRANSIENT with reason "throttled" and a recheck any worker may do', () => {
    const { envelope } = buildEnvelope(classify(reply('421 4.7.0 mx.example.com Error: too many errors'), PLAIN), PLAIN, CONTEXT);
    assert.deepEqual(envelope.reasons, ['throttled']);
    assert.equal(envelope.retry?.affinity_required, false);
  });

  test('greylisting asks for a recheck by the same worker after the recheck delay', () => {
    const { envelope } = buildEnvelope(classify(reply('450 4.7.1 greylisted'), PLAIN), PLAIN, CONTEXT);
    assert.deepEqual(envelope.retry, {
      eligible_at: '2026-01-01T00:05:00.000Z',
      expires_at: '2026-01-02T00:05:00.000Z',
      affinity_required: true,
    });
  });

  test('a timeout asks for a recheck that any worker may do', () => {
    const finding = probe({ kind: 'failure', failure: { kind: 'timeout', step: 'rcpt', reply: null, detail: '' } });
    const { envelope } = buildEnvelope(classify(finding, PLAIN), PLAIN, CONTEXT);
    assert.equal(envelope.retry?.affinity_required, false);
    assert.deepEqual(envelope.reasons, ['smtp_timeout']);
  });

  test('a clean 550 5.1.1 is more certain than the same answer judged from text alone', () => {
    const clean = classify(reply('550 5.1.1 user unknown'), PLAIN);
    const textOnly = classify(reply('550 No such user here'), PLAIN);
    assert.equal(clean.confidence, 0.97);
    assert.ok((textOnly.confidence ?? 1) < (clean.confidence ?? 0));
  });

  test('an accept on a catch-all domain is less certain than a proven mailbox', () => {
    const proven = classify(reply('250 OK', false), PLAIN);
    const catchAll = classify(reply('250 OK', true), PLAIN);
    const unknownCatchAll = classify(reply('250 OK', null), PLAIN);
    assert.ok((catchAll.confidence ?? 1) < (proven.confidence ?? 0));
    assert.ok((unknownCatchAll.confidence ?? 1) < (proven.confidence ?? 0));
    assert.equal(catchAll.evidence, 'smtp_catch_all_probe');
  });

  test('DELIVERABLE scores confidence × 100, undeliverable scores low', () => {
    assert.equal(buildEnvelope(classify(reply('250 OK'), PLAIN), PLAIN, CONTEXT).score, 95);
    assert.equal(buildEnvelope(classify(reply('550 5.1.1 unknown'), PLAIN), PLAIN, CONTEXT).score, 3);
  });

  test('a suspected typo adds possible_typo and asks to enrich first, unless the mailbox is deliverable', () => {
    const typo: AddressTraits = { ...PLAIN, didYouMean: 'bob@gmail.com' };
    const rejected = buildEnvelope(classify(reply('550 5.1.1 unknown'), typo), typo, CONTEXT);
    assert.equal(rejected.envelope.decision, 'enrich_first');
    assert.ok(rejected.envelope.reasons.includes('possible_typo'));
    assert.equal(rejected.legacy.didYouMean, 'bob@gmail.com');
    const accepted = buildEnvelope(classify(reply('250 OK'), typo), typo, CONTEXT);
    assert.equal(accepted.envelope.decision, 'send');
    assert.ok(accepted.envelope.reasons.includes('possible_typo'));
  });

  test('free providers and role accounts are named in the reasons of any verdict', () => {
    const traits: AddressTraits = { ...PLAIN, role: true, free: true };
    const result = classify(reply('550 5.1.1 unknown'), traits);
    assert.deepEqual(result.reasons, ['mailbox_not_found', 'role_account', 'free_provider']);
  });

  test('provider_family is null when the domain has no MX hosts', () => {
    const traits: AddressTraits = { ...PLAIN, providerFamily: null };
    const { envelope } = buildEnvelope(classify({ kind: 'dns', result: 'null_mx' }, traits), traits, CONTEXT);
    assert.equal(envelope.provider_family, null);
  });

  test('legacy decision maps verdicts to deliverable / undeliverable / risky / unknown', () => {
    const legacyOf = (finding: Finding, traits = PLAIN) => buildEnvelope(classify(finding, traits), traits, CONTEXT).legacy.result;
    assert.equal(legacyOf(reply('250 OK')), 'deliverable');
    assert.equal(legacyOf(reply('550 5.1.1 x')), 'undeliverable');
    assert.equal(legacyOf(reply('250 OK', true)), 'risky');
    assert.equal(legacyOf({ kind: 'dns', result: 'servfail' }), 'unknown');
  });
});

/**
 * The decision policy's rules (docs/policy.md): which changes are refused, how a change is read,
 * and how a policy applies to one result — table-driven over every verdict and decision.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRESEND_DECISIONS, PUBLIC_VERDICTS } from '../../src/core/types.js';
import { createSandboxEngine } from '../../src/core/index.js';
import { allowedDecisions, changeRules, defaultDecision, parseDecisionArguments } from '../../src/service/policy/decision-policy.js';
import { applyPolicy } from '../../src/service/policy/apply-policy.js';
import { failedResult } from '../../src/service/checks/envelopes.js';
import { toStoredResult } from '../../src/store/stored-result.js';
import { DEFAULT_RULES } from '../../src/store/roles/policies.js';

const sandbox = createSandboxEngine();
const result = async (email: string) => toStoredResult(await sandbox.verify(email));

test('no verdict may be sent on without evidence: the refused combinations, for every verdict and decision', () => {
  const nonVerdicts = ['GREYLISTED', 'TRANSIENT', 'UNKNOWN', 'UNKNOWN_WEBMAIL'];
  const neverDelivers = ['UNDELIVERABLE_NO_MAILBOX', 'UNDELIVERABLE_NO_MAIL_SERVER', 'UNDELIVERABLE_BOUNCED', 'SPAMTRAP', 'BLACKLISTED'];
  for (const verdict of PUBLIC_VERDICTS) {
    for (const decision of PRESEND_DECISIONS) {
      const outcome = changeRules(DEFAULT_RULES, { decisions: { [verdict]: decision } });
      let expected = decision !== 'enrich_first';
      if (nonVerdicts.includes(verdict)) expected = ['recheck_later', 'manual_review', 'do_not_decide'].includes(decision);
      if (neverDelivers.includes(verdict) && (decision === 'send' || decision === 'send_with_caution')) expected = false;
      if (decision === defaultDecision(verdict)) expected = true;
      assert.equal(outcome.ok, expected, `${verdict} → ${decision}`);
      assert.equal(allowedDecisions(verdict).includes(decision), expected, `${verdict} → ${decision} listed as allowed`);
      if (!outcome.ok) assert.match(outcome.message, new RegExp(verdict));
    }
  }
});

test('a change starts from the rules in force; default drops a rule; reset starts over; a bad threshold is refused', () => {
  const one = changeRules(DEFAULT_RULES, { decisions: { role: 'SEND', CATCH_ALL: 'manual_review' }, minConfidence: 0.8 });
  assert.deepEqual(one, { ok: true, rules: { decisions: { CATCH_ALL: 'manual_review', ROLE: 'send' }, minConfidence: 0.8 } });
  if (!one.ok) return;
  assert.deepEqual(changeRules(one.rules, { decisions: { ROLE: 'default' } }), { ok: true, rules: { decisions: { CATCH_ALL: 'manual_review' }, minConfidence: 0.8 } });
  assert.deepEqual(changeRules(one.rules, { decisions: { ROLE: 'send_with_caution' } }), { ok: true, rules: { decisions: { CATCH_ALL: 'manual_review' }, minConfidence: 0.8 } }, 'a rule equal to the default is no rule');
  assert.deepEqual(changeRules(one.rules, { reset: true, decisions: { DISPOSABLE: 'manual_review' } }), { ok: true, rules: { decisions: { DISPOSABLE: 'manual_review' }, minConfidence: null } });
  assert.deepEqual(changeRules(one.rules, { minConfidence: null }), { ok: true, rules: { decisions: one.rules.decisions, minConfidence: null } });
  for (const bad of [0, -0.1, 1.01, Number.NaN]) assert.equal(changeRules(DEFAULT_RULES, { minConfidence: bad }).ok, false, String(bad));
  assert.equal(changeRules(DEFAULT_RULES, { decisions: { NOPE: 'send' } }).ok, false);
  assert.equal(changeRules(DEFAULT_RULES, { decisions: { ROLE: 'maybe' } }).ok, false);
  assert.deepEqual(parseDecisionArguments(['ROLE=send', ' CATCH_ALL = manual_review ']), { ok: true, decisions: { ROLE: 'send', CATCH_ALL: 'manual_review' } });
  assert.equal(parseDecisionArguments(['ROLE:send']).ok, false);
});

test('applying a policy: the threshold first, then a suspected typo keeps enrich_first, then the verdict rule; only decision and reasons change', async () => {
  const rules = { decisions: { ROLE: 'send', CATCH_ALL: 'suppress', UNKNOWN: 'manual_review' } as const, minConfidence: 0.7 };
  const role = await result('role@example.com');
  const decided = applyPolicy(role, rules);
  assert.deepEqual(decided, { ...role, envelope: { ...role.envelope, decision: 'send', reasons: [...role.envelope.reasons, 'policy_rule'] } });
  const catchAll = applyPolicy(await result('catchall@example.com'), rules);
  assert.equal(catchAll.envelope.decision, 'do_not_decide', 'confidence 0.6 < 0.7');
  assert.deepEqual(catchAll.envelope.reasons.slice(-1), ['policy_confidence_threshold']);
  assert.equal(applyPolicy(await result('unknown@example.com'), rules).envelope.decision, 'manual_review');
  // A ROLE address whose domain looks like a typo (the engine's `enrich_first`, docs/design.md §5).
  const typo = { ...role, envelope: { ...role.envelope, decision: 'enrich_first' as const, reasons: [...role.envelope.reasons, 'possible_typo' as const] } };
  assert.deepEqual(applyPolicy(typo, { ...rules, minConfidence: null }), typo);
  const rejected = await result('not an address');
  assert.deepEqual(applyPolicy(rejected, rules), rejected, 'no verdict: nothing for the policy');
  const failed = failedResult(new Date());
  assert.deepEqual(applyPolicy(failed, rules), failed);
});

/**
 * The Policy page (docs/policy.md): the decision each verdict gets for this account, a choice
 * per verdict among the decisions it may have, the confidence threshold, and every version
 * before with who made it and when. Changes apply to checks decided from then on; stored
 * results keep their decisions.
 */
import { html } from 'ghtml';
import { csrfField, when } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { PolicyVersion } from '../../store/roles/policies.js';
import { policyTable } from '../../service/policy/decision-policy.js';
import type { PolicyOverview } from '../../service/policy/policies.js';

const DECISION_WORDS: Record<string, string> = {
  send: 'send',
  suppress: 'suppress',
  send_with_caution: 'send with caution',
  enrich_first: 'enrich first',
  recheck_later: 'recheck later',
  manual_review: 'manual review',
  do_not_decide: 'do not decide',
};

const words = (decision: string): string => DECISION_WORDS[decision] ?? decision;

function summary(v: PolicyVersion): string {
  const rules = Object.entries(v.rules.decisions).map(([verdict, decision]) => `${verdict} → ${words(decision)}`);
  if (v.rules.minConfidence !== null) rules.push(`confidence below ${v.rules.minConfidence} → do not decide`);
  return rules.length === 0 ? 'the default table' : rules.join('; ');
}

function historyTable(history: readonly PolicyVersion[]): string {
  if (history.length === 0) return html`<p>Never changed: this account follows the default table.</p>`;
  return html`<table>
    <caption class="visually-hidden">Versions of this account's policy, newest first</caption>
    <thead><tr><th scope="col">Version</th><th scope="col">Changed</th><th scope="col">By</th><th scope="col">Rules</th></tr></thead>
    <tbody>!${history.map(
      (v) => html`<tr><td>${v.version}</td><td>!${v.changedAt ? when(v.changedAt) : ''}</td><td>${v.changedBy ?? ''}</td><td>${summary(v)}</td></tr>`,
    )}</tbody></table>`;
}

export function policyPage(ctx: PageContext, overview: PolicyOverview): string {
  const { current, history } = overview;
  const threshold = current.rules.minConfidence === null ? '' : String(current.rules.minConfidence);
  return html`
  <p>Each check's <code>decision</code> follows this table. Change what a verdict means for you (for example, send to role addresses), or set a confidence below which no action is recommended. Changes apply to checks decided from now on, on live and sandbox keys; results already stored keep their decisions, and billing does not change (it follows the verdict).</p>
  <p>${current.version === 0 ? 'In force: the default table (version 0).' : `In force: version ${current.version}, set by ${current.changedBy ?? '?'}.`}</p>
  <form method="post" action="/dashboard/policy" class="stack">
    !${csrfField(ctx)}
    <input type="hidden" name="version" value="${String(current.version)}">
    <table>
      <caption class="visually-hidden">Decision per verdict</caption>
      <thead><tr><th scope="col">Verdict</th><th scope="col">Decision</th></tr></thead>
      <tbody>!${policyTable(current.rules).map(
        (row) => html`<tr>
          <th scope="row"><label for="decision-${row.verdict}">${row.verdict}</label></th>
          <td><select id="decision-${row.verdict}" name="decision.${row.verdict}">!${row.allowed.map(
            (d, i) => html`<option value="${d}"!${d === row.decision ? ' selected' : ''}>${words(d)}${i === 0 ? ' (default)' : ''}</option>`,
          )}</select></td>
        </tr>`,
      )}</tbody>
    </table>
    <div class="field">
      <label for="policy-threshold">Confidence threshold <span class="hint">(0.01–1; an actionable verdict less sure than this gets “do not decide”; empty for none)</span></label>
      <input type="number" id="policy-threshold" name="minConfidence" min="0.01" max="1" step="0.01" value="${threshold}">
    </div>
    <p class="hint">Some choices are not offered: a non-verdict (greylisted, transient, unknown) is never “send” nor “suppress”; an undeliverable address, a spam trap or a blocklisted domain is never “send”; “enrich first” is kept for suspected typos.</p>
    <div><button type="submit">Save policy</button></div>
  </form>
  <h2>History</h2>
  !${historyTable(history)}`;
}

/** "Try an address": one address verified through the same service as POST /v1/verify, and its envelope in words. */
import { html } from 'ghtml';
import { csrfField } from '../layout.js';
import type { PageContext } from '../layout.js';
import { keyOption } from './key-option.js';
import { decisionText, reasonText, verdictText } from '../explain.js';
import type { ApiKeyRecord } from '../../store/roles/key-management.js';
import type { PresendEnvelope } from '../../core/types.js';
import type { Evidence } from '../../core/evidence/evidence.js';
import { evidenceTimeline } from '../evidence-timeline.js';

export type TryOutcome =
  | { kind: 'completed'; email: string; envelope: PresendEnvelope; evidence: Evidence | null }
  | { kind: 'pending'; email: string; checkId: string }
  | { kind: 'refused'; email: string; message: string };

/**
 * `provider_family` is null both when the domain has no mail servers and when none were looked
 * up (a sandbox key checks nothing on the network): only the verdict tells which.
 */
function mailProvider(e: PresendEnvelope): string {
  if (e.provider_family !== null) return e.provider_family;
  if (e.evidence_class === 'sandbox') return 'not looked up (a sandbox key checks nothing on the network)';
  if (e.verdict === 'UNDELIVERABLE_NO_MAIL_SERVER') return 'none: the domain has no mail servers';
  return 'not known';
}

export function envelopeView(email: string, e: PresendEnvelope, evidence: Evidence | null): string {
  return html`<section aria-labelledby="result-title">
    <h2 id="result-title">Result for ${email}</h2>
    <dl class="envelope">
      <dt>Decision</dt><dd><strong>${decisionText(e.decision)}</strong></dd>
      <dt>Verdict</dt><dd>${verdictText(e.verdict)}!${e.verdict ? html` <code>${e.verdict}</code>` : ''}</dd>
      <dt>Confidence</dt><dd>${e.confidence === null ? 'none (no verdict)' : `${Math.round(e.confidence * 100)} %`}</dd>
      <dt>Status</dt><dd>${e.status} (${e.outcome.replace(/_/g, ' ')})</dd>
      <dt>Mail provider</dt><dd>${mailProvider(e)}</dd>
      <dt>Evidence</dt><dd>${e.evidence_class ?? 'none'}</dd>
      <dt>Billing</dt><dd>${e.billing.disposition}, ${e.billing.credits} credit${e.billing.credits === 1 ? '' : 's'}</dd>
      !${e.retry ? html`<dt>Retry</dt><dd>after ${e.retry.eligible_at}${e.retry.affinity_required ? ', from the same sender' : ''}</dd>` : ''}
      !${e.history ? html`<dt>Checked before</dt><dd>${e.history.checks} time(s)!${e.history.lastVerdict ? html`, last verdict ${verdictText(e.history.lastVerdict)}` : ''}</dd>` : ''}
      !${e.history?.lastHardBounce ? html`<dt>Hard bounce</dt><dd>${e.history.lastHardBounce.at} (${e.history.lastHardBounce.code ?? 'no code'}, from ${e.history.lastHardBounce.source})</dd>` : ''}
      !${e.history?.lastDelivery ? html`<dt>Delivered</dt><dd>${e.history.lastDelivery.at} (from ${e.history.lastDelivery.source})</dd>` : ''}
      !${e.history?.softBounces ? html`<dt>Soft bounces</dt><dd>${e.history.softBounces.count}, last ${e.history.softBounces.at}</dd>` : ''}
      !${e.history?.complaints ? html`<dt>Complaints</dt><dd>${e.history.complaints.count}, last ${e.history.complaints.at}</dd>` : ''}
    </dl>
    !${e.history ? html`<p><a href="/dashboard/feedback/address?email=${encodeURIComponent(email)}">History of this address</a> (and forget it)</p>` : ''}
    <h3>Why</h3>
    !${
      e.reasons.length === 0
        ? html`<p>No reasons given.</p>`
        : html`<ul class="reasons">!${e.reasons.map((r) => html`<li><code>${r}</code>: ${reasonText(r)}</li>`)}</ul>`
    }
    !${evidenceTimeline(evidence)}
    <details><summary>The envelope as the API returns it</summary><pre><code>${JSON.stringify(e, null, 2)}</code></pre></details>
  </section>`;
}

function outcomeView(outcome: TryOutcome | null): string {
  if (!outcome) return '';
  switch (outcome.kind) {
    case 'completed':
      return envelopeView(outcome.email, outcome.envelope, outcome.evidence);
    case 'pending':
      return html`<p role="status">The check of ${outcome.email} is still running (check <code>${outcome.checkId}</code>). Its result is stored and billed when it ends; try the same address again in a moment.</p>`;
    case 'refused':
      return html`<p class="error-message" role="alert">${outcome.message}</p>`;
  }
}

export function tryPage(ctx: PageContext, input: { keys: ApiKeyRecord[]; email: string; keyId: string | null; idempotencyToken: string; outcome: TryOutcome | null }): string {
  if (input.keys.length === 0) return html`<p>Create an <a href="/dashboard/keys">API key</a> first: a check runs on a key, live or sandbox.</p>`;
  return html`
  <form method="post" action="/dashboard/try" class="stack">
    !${csrfField(ctx)}
    <input type="hidden" name="idempotency" value="${input.idempotencyToken}">
    <div class="field"><label for="address">Email address</label>
      <input type="text" inputmode="email" id="address" name="email" required maxlength="320" value="${input.email}" autocomplete="off" autocapitalize="off" spellcheck="false"></div>
    <div class="field"><label for="try-key">Check with key <span class="hint">(a live key uses a credit for an actionable verdict)</span></label>
      <select id="try-key" name="key">!${input.keys.map((k, i) => keyOption(k, input.keyId ? k.id === input.keyId : i === 0))}</select></div>
    <div><button type="submit">Verify</button></div>
  </form>
  !${outcomeView(input.outcome)}`;
}

/** One address of a batch: its result in words and how it was reached (its evidence timeline), or why there is none yet. */
import { html } from 'ghtml';
import type { Evidence } from '../../core/evidence/evidence.js';
import type { StoredResult } from '../../store/stored-result.js';
import { envelopeView } from './try.js';
import { evidenceTimeline } from '../evidence-timeline.js';

export function batchAddressPage(input: { requestId: string; email: string; found: { state: string; result: StoredResult | null; evidence: Evidence | null } | null }): string {
  const back = html`<p><a href="/dashboard/batches/${input.requestId}">Back to the batch</a></p>`;
  const { found } = input;
  if (!found) return html`!${back}<p role="status">This batch has no address <code>${input.email}</code>. Addresses are looked up as the batch stored them (domain in lower case).</p>`;
  if (!found.result) {
    return html`!${back}<p role="status"><code>${input.email}</code> is not final yet (${found.state}).</p>!${found.evidence ? evidenceTimeline(found.evidence, 2) : ''}`;
  }
  return html`!${back}!${envelopeView(input.email, found.result.envelope, found.evidence)}`;
}

/** The batch page's way in: a form for any address, and the first final addresses as links. */
export function explainAddressForm(requestId: string, first: ReadonlyArray<{ email: string; verdict: string | null }>): string {
  return html`<h2>Explain an address</h2>
  <form method="get" action="/dashboard/batches/${requestId}/address" class="stack">
    <div class="field"><label for="explain-email">Address of this batch</label>
      <input type="text" inputmode="email" id="explain-email" name="email" required maxlength="320" autocomplete="off" autocapitalize="off" spellcheck="false"></div>
    <div><button type="submit">Show how it was decided</button></div>
  </form>
  !${
    first.length === 0
      ? ''
      : html`<p>First final addresses:</p><ul class="explain-links">!${first.map(
          (r) => html`<li><a href="/dashboard/batches/${requestId}/address?email=${encodeURIComponent(r.email)}">${r.email}</a> (${r.verdict ?? 'no verdict'})</li>`,
        )}</ul>`
  }`;
}

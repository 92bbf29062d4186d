/**
 * A secret shown once after its creation (an API key, a webhook signing secret, a feedback
 * webhook URL): its panel, with the value in a read-only field and a copy button. `title` and
 * `intro` are fragments the page built with `html` (already escaped); `value` is escaped here.
 */
import { html } from 'ghtml';

export function shownOncePanel(o: { id: string; title: string; intro: string; label: string; value: string; copyLabel: string }): string {
  return html`<section class="new-key" aria-labelledby="${o.id}-title">
    <h2 id="${o.id}-title">!${o.title}</h2>
    <p><strong>Copy it now: it is shown only this once.</strong> !${o.intro}</p>
    <div class="field">
      <label for="${o.id}-value">${o.label}</label>
      <input type="text" id="${o.id}-value" readonly value="${o.value}" spellcheck="false" autocomplete="off">
    </div>
    <p><button type="button" class="secondary" data-copy-target="${o.id}-value" data-copy-status="copy-status" hidden>${o.copyLabel}</button>
    <span id="copy-status" role="status"></span></p>
  </section>`;
}

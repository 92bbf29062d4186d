/**
 * A check's evidence (docs/evidence.md) as a readable timeline, for "Try an address" and a
 * batch's per-address page: the sentences of evidence-words.ts (DNS, MX hosts, the catch-all
 * probe, the reply-table row that decided, what the account's policy or feedback changed), then
 * the conversation as this address saw it, as a table.
 */
import { html } from 'ghtml';
import type { Evidence, EvidenceLine } from '../core/evidence/evidence.js';
import { durationText, evidenceSentences, lineTook, lineWhen, SPEAKER } from './evidence-words.js';

function lineRow(line: EvidenceLine): string {
  const kind = line.dir === '-' ? 'event' : line.dir === 'C' ? 'sent' : 'reply';
  return html`<tr class="line-${kind}"><td>${lineWhen(line)}</td><td>${line.host}</td><td>${SPEAKER[line.dir]}</td><td>!${
    line.dir === '-' ? html`${line.text}` : html`<code>${line.text}</code>`
  }${lineTook(line)}</td></tr>`;
}

export function evidenceTimeline(e: Evidence | null, headingLevel: 2 | 3 = 3): string {
  const title = 'How this verdict was reached';
  const heading = headingLevel === 2 ? html`<h2 id="timeline-title">${title}</h2>` : html`<h3 id="timeline-title">${title}</h3>`;
  if (!e) {
    return html`<section aria-labelledby="timeline-title">!${heading}<p>No evidence was kept for this check (it ran before evidence was kept, or is past the retention period).</p></section>`;
  }
  return html`<section aria-labelledby="timeline-title" class="evidence">
    !${heading}
    <p class="hint">Checked at ${e.startedAt}, in ${durationText(e.durationMs)}.</p>
    <ol class="timeline">!${evidenceSentences(e).map((s) => html`<li>${s}</li>`)}</ol>
    !${
      e.transcript.length === 0
        ? html`<p>No mail server was spoken to.</p>`
        : html`<table class="transcript">
      <caption>The conversation with the mail server, as this address saw it</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Server</th><th scope="col">Who</th><th scope="col">Line</th></tr></thead>
      <tbody>!${e.transcript.map(lineRow)}</tbody>
    </table>`
    }
    !${e.dropped > 0 ? html`<p class="hint">${e.dropped} further line(s) not kept (a check keeps at most 60).</p>` : ''}
  </section>`;
}

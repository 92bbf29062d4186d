/**
 * A check's evidence (docs/evidence.md) as a readable timeline, for "Try an address" and a
 * batch's per-address page: where the DNS answers came from, the MX hosts, the conversation as
 * this address saw it, the catch-all probe, the reply-table row that decided, and what the
 * account's policy or feedback changed. Reasons and decisions are worded by explain.ts.
 */
import { html } from 'ghtml';
import type { Evidence, EvidenceFact, EvidenceLine } from '../core/evidence/evidence.js';
import { decisionText, reasonText } from './explain.js';

/** "12 ms", "4 s", "3 min", "2 h", "5 days". */
export function durationText(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}

function factText(f: EvidenceFact): string {
  const what = f.key.startsWith('mx:') ? `Mail servers (MX) of ${f.key.slice(3)}` : f.key;
  if (f.source === 'lookup') return `${what}: looked up${f.tookMs === null ? '' : ` in ${durationText(f.tookMs)}`} — ${f.summary}`;
  return `${what}: from the cache${f.ageMs === null ? '' : `, ${durationText(f.ageMs)} old`} — ${f.summary}`;
}

const WHO: Record<EvidenceLine['dir'], string> = { C: 'Presend', S: 'Server', '-': '' };

function lineRow(line: EvidenceLine): string {
  const at = line.atMs < 0 ? `${durationText(-line.atMs)} before` : `+${durationText(line.atMs)}`;
  const took = line.tookMs === undefined ? '' : ` (after ${durationText(line.tookMs)})`;
  return html`<tr class="line-${line.dir === '-' ? 'event' : line.dir === 'C' ? 'sent' : 'reply'}">
    <td>${at}</td><td>${line.host}</td><td>${WHO[line.dir]}</td><td>!${line.dir === '-' ? html`<em>${line.text}</em>` : html`<code>${line.text}</code>`}${took}</td>
  </tr>`;
}

function catchAllText(e: Evidence): string {
  const c = e.catchAll;
  if (!c) return '';
  const result = { accepts_any_address: 'the domain accepts any address (catch-all)', rejects_unknown_addresses: 'the domain refuses unknown addresses', could_not_tell: 'no answer that tells' }[c.result];
  if (c.source === 'none') return html`<li>Catch-all: not probed (the provider accepts every recipient when asked, or no probe answered).</li>`;
  const asked = c.address ? html`asked about the made-up address <code>${c.address}</code>` : 'asked by another node';
  const reply = c.reply ? html`, answered <code>${c.reply.code} ${c.reply.text}</code>${c.rule ? html` (reply-table row <code>${c.rule}</code>)` : ''}` : '';
  const when = c.source === 'cache' ? ` — from the cache${c.ageMs === null ? '' : `, ${durationText(c.ageMs)} old`}` : '';
  return html`<li>Catch-all probe: !${asked}!${reply}: ${result}${when}.</li>`;
}

function decidedText(e: Evidence): string {
  const d = e.decidedBy;
  if (!d) return html`<li>Outcome: ${e.outcome}.</li>`;
  const rule = d.rule ? html`, read by the reply-table row <code>${d.rule.id}</code> as <strong>${d.rule.class.replace(/_/g, ' ')}</strong>` : '';
  return html`<li>Decided by the reply to ${d.step === 'rcpt' ? 'RCPT TO' : 'MAIL FROM'} from ${d.host ?? 'the mail server'}: <code>${d.reply.code} ${d.reply.text}</code>!${rule}.</li>`;
}

export function evidenceTimeline(e: Evidence | null, headingLevel: 2 | 3 = 3): string {
  const heading = headingLevel === 2 ? (t: string) => html`<h2 id="timeline-title">${t}</h2>` : (t: string) => html`<h3 id="timeline-title">${t}</h3>`;
  if (!e) {
    return html`<section aria-labelledby="timeline-title">!${heading('How this verdict was reached')}<p>No evidence was kept for this check (it ran before evidence was kept, or is past the retention period).</p></section>`;
  }
  return html`<section aria-labelledby="timeline-title" class="evidence">
    !${heading('How this verdict was reached')}
    <p class="hint">Checked at ${e.startedAt}, in ${durationText(e.durationMs)}.</p>
    <ol class="timeline">
      !${e.facts.map((f) => html`<li>${factText(f)}.</li>`)}
      !${e.mxHosts ? html`<li>Mail servers, in the order they are tried: !${e.mxHosts.map((h, i) => html`${i > 0 ? ', ' : ''}<code>${h.name}</code> (preference ${h.preference})`)}.</li>` : ''}
      !${e.notes.map((n) => html`<li>${n}.</li>`)}
      !${catchAllText(e)}
      !${decidedText(e)}
      !${e.policy ? html`<li>Your decision policy changed the recommendation from ${decisionText(e.policy.from)} to <strong>${decisionText(e.policy.to)}</strong>: ${reasonText(e.policy.reason)}</li>` : ''}
      !${e.feedback ? html`<li>Your own send feedback decided or changed the result (${e.feedback.replace(/^your send feedback: /, '')}).</li>` : ''}
    </ol>
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

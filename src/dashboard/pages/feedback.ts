/**
 * The feedback pages (docs/feedback.md): each source with its counts, last event and last error;
 * a webhook token made and shown once; the key that verifies a provider's deliveries; the bounce
 * window; recent file imports; and one address's history with "Forget this address".
 */
import { html } from 'ghtml';
import { shownOncePanel } from '../shown-once.js';
import { csrfField, when } from '../layout.js';
import type { Flash, PageContext } from '../layout.js';
import type { AddressRecord, FeedbackImport, FeedbackSourceStatus } from '../../store/roles/feedback/feedback-records.js';
import { WEBHOOK_SOURCES } from '../../service/feedback/source-tokens.js';
import { VERDICT_TEXT } from '../explain.js';
import type { PublicVerdict } from '../../core/types.js';

const SOURCE_NAMES: Record<string, string> = {
  ses: 'Amazon SES (through SNS)',
  sendgrid: 'SendGrid',
  postmark: 'Postmark',
  mailgun: 'Mailgun',
  csv: 'CSV files',
  dsn: 'Bounce messages (DSN files)',
};

const KEY_HINTS: Record<string, string> = {
  ses: 'optional: the SNS topic ARN, so only that topic is taken',
  sendgrid: 'required: the Signed Event Webhook verification key',
  postmark: 'optional: user:password of the basic auth in your webhook URL',
  mailgun: 'required: the HTTP webhook signing key',
};

const KIND_TEXT: Record<string, string> = { hard_bounce: 'Hard bounce', soft_bounce: 'Soft bounce', delivery: 'Delivery', complaint: 'Complaint' };

function newTokenPanel(flash: Flash | null): string {
  const made = flash?.newFeedbackToken;
  if (!made) return '';
  const name = SOURCE_NAMES[made.source] ?? made.source;
  return shownOncePanel({
    id: 'new-token',
    title: html`Webhook URL for ${name}`,
    intro: html`Give it to ${name} as the webhook URL (docs/feedback.md). An earlier URL of this source no longer works.`,
    label: 'Webhook URL',
    value: made.url,
    copyLabel: 'Copy URL',
  });
}

function sourceRows(sources: readonly FeedbackSourceStatus[]): string {
  if (sources.length === 0) return html`<p>No feedback yet.</p>`;
  return html`<table>
    <caption class="visually-hidden">Feedback sources of this account</caption>
    <thead><tr><th scope="col">Source</th><th scope="col">Webhook</th><th scope="col">Events</th><th scope="col">Repeated</th><th scope="col">Refused</th><th scope="col">Last event</th><th scope="col">Last error</th></tr></thead>
    <tbody>!${sources.map(
      (s) => html`<tr>
        <td>${SOURCE_NAMES[s.source] ?? s.source}</td>
        <td>${s.hasToken ? `${s.tokenPrefix ?? ''}…${s.hasVerifyKey ? ', key set' : ''}` : '—'}</td>
        <td>${s.events}</td>
        <td>${s.duplicates}</td>
        <td>${s.errors}</td>
        <td>!${s.lastEventAt ? when(s.lastEventAt) : '—'}</td>
        <td>${s.lastError ?? '—'}!${s.lastErrorAt ? html` (!${when(s.lastErrorAt)})` : ''}</td>
      </tr>`,
    )}</tbody></table>`;
}

function importRows(imports: readonly FeedbackImport[]): string {
  if (imports.length === 0) return html`<p>No file imported yet (<code>presend feedback import FILE --account NAME</code>).</p>`;
  return html`<table>
    <caption class="visually-hidden">Recent feedback imports</caption>
    <thead><tr><th scope="col">File</th><th scope="col">Kind</th><th scope="col">State</th><th scope="col">Events</th><th scope="col">Repeated</th><th scope="col">Unreadable</th><th scope="col">Started</th></tr></thead>
    <tbody>!${imports.map(
      (i) => html`<tr><td>${i.name}</td><td>${i.source}</td><td>${i.state === 'running' && i.finishedAt === null ? 'running or stopped' : i.state}</td><td>${i.events}</td><td>${i.duplicates}</td><td>${i.rejected}</td><td>!${when(i.startedAt)}</td></tr>`,
    )}</tbody></table>`;
}

export function feedbackPage(ctx: PageContext, input: { sources: FeedbackSourceStatus[]; imports: FeedbackImport[]; windowDays: number }): string {
  return html`
  !${newTokenPanel(ctx.flash)}
  <p>Your own bounces, deliveries and complaints shape your checks: an address that hard-bounced within the window answers <strong>Undeliverable: bounced before</strong> without a probe; at a catch-all domain a recent delivery makes it <strong>Deliverable</strong>; a complaint says <strong>do not send</strong>. Another account's feedback never changes yours.</p>
  <h2>Look up an address</h2>
  <form method="get" action="/dashboard/feedback/address" class="stack">
    <div class="field"><label for="lookup-email">Email address</label><input type="email" id="lookup-email" name="email" required maxlength="320"></div>
    <div><button type="submit">Show its history</button></div>
  </form>
  <h2>Sources</h2>
  !${sourceRows(input.sources)}
  <h2>Webhook URLs</h2>
  <form method="post" action="/dashboard/feedback/tokens" class="stack">
    !${csrfField(ctx)}
    <div class="field"><label for="token-source">Provider</label>
      <select id="token-source" name="source">!${WEBHOOK_SOURCES.map((s) => html`<option value="${s}">${SOURCE_NAMES[s] ?? s}</option>`)}</select></div>
    <div><button type="submit">Create webhook URL</button></div>
  </form>
  <h3>Verification key</h3>
  <form method="post" action="/dashboard/feedback/keys" class="stack">
    !${csrfField(ctx)}
    <div class="field"><label for="key-source">Provider</label>
      <select id="key-source" name="source">!${WEBHOOK_SOURCES.map((s) => html`<option value="${s}">${SOURCE_NAMES[s] ?? s} — ${KEY_HINTS[s] ?? ''}</option>`)}</select></div>
    <div class="field"><label for="key-value">Key</label><textarea id="key-value" name="key" rows="3" required maxlength="4096" spellcheck="false"></textarea></div>
    <div><button type="submit">Save key</button></div>
  </form>
  <h2>Bounce window</h2>
  <form method="post" action="/dashboard/feedback/window" class="stack">
    !${csrfField(ctx)}
    <div class="field"><label for="window-days">Days a hard bounce (and a delivery) counts</label><input type="number" id="window-days" name="days" min="1" max="3650" required value="${input.windowDays}"></div>
    <div><button type="submit">Save window</button></div>
  </form>
  <h2>File imports</h2>
  !${importRows(input.imports)}`;
}

export function addressPage(ctx: PageContext, input: { email: string; record: AddressRecord }): string {
  const h = input.record.history;
  if (!h) return html`<p>Nothing is kept about <strong>${input.email}</strong> in this account.</p><p><a href="/dashboard/feedback">Back to feedback</a></p>`;
  const rows: Array<[string, string]> = [
    ['Checks', `${h.checks}${h.lastVerdict ? `, last verdict ${VERDICT_TEXT[h.lastVerdict as PublicVerdict]}` : ''}`],
    ['Last hard bounce', h.lastHardBounce ? `${h.lastHardBounce.at} (${h.lastHardBounce.code ?? 'no code'}, ${SOURCE_NAMES[h.lastHardBounce.source] ?? h.lastHardBounce.source})` : '—'],
    ['Soft bounces', h.softBounces ? `${h.softBounces.count}, last ${h.softBounces.at}` : '—'],
    ['Last delivery', h.lastDelivery ? `${h.lastDelivery.at} (${SOURCE_NAMES[h.lastDelivery.source] ?? h.lastDelivery.source})` : '—'],
    ['Complaints', h.complaints ? `${h.complaints.count}, last ${h.complaints.at}` : '—'],
  ];
  return html`
  <dl>!${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
  <h2>Events</h2>
  !${
    input.record.events.length === 0
      ? html`<p>No feedback events.</p>`
      : html`<table><caption class="visually-hidden">Feedback events of ${input.email}</caption>
    <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Code</th><th scope="col">Source</th></tr></thead>
    <tbody>!${input.record.events.map((e) => html`<tr><td>!${when(e.at)}</td><td>${KIND_TEXT[e.kind] ?? e.kind}</td><td>${e.code ?? ''}</td><td>${SOURCE_NAMES[e.source] ?? e.source}</td></tr>`)}</tbody></table>`
  }
  <h2>Forget this address</h2>
  <p>When a person asks to be forgotten: removes the address's checks history, its feedback and its events from this account. Batch results already made are kept until their retention ends.</p>
  <form method="post" action="/dashboard/feedback/forget" class="stack">
    !${csrfField(ctx)}
    <input type="hidden" name="email" value="${input.email}">
    <div><button type="submit" class="danger">Forget this address</button></div>
  </form>`;
}

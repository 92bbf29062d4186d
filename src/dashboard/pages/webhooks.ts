/**
 * The webhooks pages: a new signing secret shown once, adding an endpoint, the account's
 * endpoints, and one endpoint with its delivery log (status, attempts, last error) and "Send
 * again" — the visibility and manual retry Standard Webhooks recommends ("Visibility into
 * failures and manual retries").
 */
import { html } from 'ghtml';
import { shownOncePanel } from '../shown-once.js';
import { csrfField, when } from '../layout.js';
import type { Flash, PageContext } from '../layout.js';
import { WEBHOOK_EVENT_TYPES } from '../../store/roles/webhooks/webhook-records.js';
import type { WebhookDelivery, WebhookEndpoint } from '../../store/roles/webhooks/webhook-records.js';
import { MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH } from '../../service/webhooks/endpoints.js';

const EVENT_WORDS: Record<string, string> = {
  'batch.completed': 'a batch finished',
  'batch.failed': 'a batch failed',
  'verification.completed': 'a single check answered “running” (202) finished',
  'verification.failed': 'a single check answered “running” (202) failed',
  'webhook.test': 'a test event',
};

function newSecretPanel(flash: Flash | null): string {
  const made = flash?.newSecret;
  if (!made) return '';
  return shownOncePanel({
    id: 'new-secret',
    title: html`${made.rotated ? 'The new signing secret' : 'Signing secret'} for ${made.url}`,
    intro: html`Your receiver verifies each delivery with it (see docs/webhooks.md).${
      made.rotated ? ' The previous secret keeps signing beside it for 24 hours, so switch your receiver over within that time.' : ''
    }`,
    label: 'Signing secret',
    value: made.secret,
    copyLabel: 'Copy secret',
  });
}

const endpointState = (e: WebhookEndpoint): string => (e.disabledAt ? `disabled (${e.disabledReason ?? 'by its owner'})` : 'active');

function endpointRows(endpoints: readonly WebhookEndpoint[]): string {
  if (endpoints.length === 0) return html`<p>No endpoints yet.</p>`;
  return html`<table>
    <caption class="visually-hidden">Webhook endpoints of this account</caption>
    <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Description</th><th scope="col">Added</th><th scope="col">State</th></tr></thead>
    <tbody>!${endpoints.map(
      (e) => html`<tr>
        <td><a href="/dashboard/webhooks/${e.id}">${e.url}</a></td>
        <td>${e.events.join(', ')}</td>
        <td>${e.description ?? ''}</td>
        <td>!${when(e.createdAt)}</td>
        <td>${endpointState(e)}</td>
      </tr>`,
    )}</tbody></table>`;
}

export function webhooksPage(ctx: PageContext, input: { endpoints: WebhookEndpoint[] }): string {
  return html`
  !${newSecretPanel(ctx.flash)}
  <p>Presend posts a signed event (Standard Webhooks) to each endpoint when something you subscribed to happens, and retries for about three days until your endpoint answers 2xx. Sandbox keys' work is announced too.</p>
  <h2>Add an endpoint</h2>
  <form method="post" action="/dashboard/webhooks" class="stack">
    !${csrfField(ctx)}
    <div class="field">
      <label for="endpoint-url">Endpoint URL <span class="hint">(https://…; your receiver answers 2xx to take a delivery)</span></label>
      <input type="url" id="endpoint-url" name="url" required maxlength="${MAX_URL_LENGTH}" placeholder="https://example.com/hooks/presend">
    </div>
    <div class="field">
      <label for="endpoint-description">Description <span class="hint">(optional)</span></label>
      <input type="text" id="endpoint-description" name="description" maxlength="${MAX_DESCRIPTION_LENGTH}">
    </div>
    <fieldset>
      <legend>Events to send</legend>
      !${WEBHOOK_EVENT_TYPES.map(
        (t) => html`<div><input type="checkbox" id="event-${t}" name="events" value="${t}" checked> <label for="event-${t}"><code>${t}</code>: ${EVENT_WORDS[t] ?? ''}</label></div>`,
      )}
    </fieldset>
    <div><button type="submit">Add endpoint</button></div>
  </form>
  <h2>Endpoints</h2>
  !${endpointRows(input.endpoints)}`;
}

function deliveryState(d: WebhookDelivery): string {
  if (d.state === 'pending' && d.attempts > 0) return 'retrying';
  return d.state;
}

function deliveryRows(ctx: PageContext, endpoint: WebhookEndpoint, deliveries: readonly WebhookDelivery[]): string {
  if (deliveries.length === 0) return html`<p>Nothing sent yet.</p>`;
  return html`<table>
    <caption class="visually-hidden">Deliveries to this endpoint, newest first</caption>
    <thead><tr><th scope="col">Event</th><th scope="col">webhook-id</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Last answer</th>
      <th scope="col">Last attempt</th><th scope="col">Next attempt</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>!${deliveries.map(
      (d) => html`<tr>
        <td><code>${d.eventType}</code></td>
        <td><code>${d.eventId}</code></td>
        <td>${deliveryState(d)}</td>
        <td class="num">${d.attempts}</td>
        <td>${d.lastStatus !== null ? `HTTP ${d.lastStatus}` : ''}${d.lastError && d.state !== 'delivered' ? `${d.lastStatus !== null ? ' · ' : ''}${d.lastError}` : ''}</td>
        <td>!${when(d.lastAttemptAt, 'not yet')}</td>
        <td>!${d.state === 'pending' ? when(d.nextAttemptAt) : html`<span class="muted">none</span>`}</td>
        <td>!${
          (d.state === 'delivered' || d.state === 'failed') && !endpoint.disabledAt
            ? html`<form method="post" action="/dashboard/webhooks/${endpoint.id}/deliveries/${d.id}/resend" class="inline">!${csrfField(ctx)}
                <button type="submit" class="secondary" aria-label="Send again: ${d.eventType} ${d.eventId}">Send again</button></form>`
            : ''
        }</td>
      </tr>`,
    )}</tbody></table>`;
}

export function endpointPage(ctx: PageContext, input: { endpoint: WebhookEndpoint; deliveries: WebhookDelivery[] }): string {
  const e = input.endpoint;
  const action = (path: string, label: string, style = 'secondary') =>
    html`<form method="post" action="/dashboard/webhooks/${e.id}/${path}" class="inline">!${csrfField(ctx)}<button type="submit" class="${style}">${label}</button></form>`;
  return html`
  !${newSecretPanel(ctx.flash)}
  <dl class="envelope">
    <dt>URL</dt><dd><code>${e.url}</code></dd>
    <dt>Events</dt><dd>${e.events.join(', ')}</dd>
    !${e.description ? html`<dt>Description</dt><dd>${e.description}</dd>` : ''}
    <dt>Added</dt><dd>!${when(e.createdAt)}</dd>
    <dt>State</dt><dd>${endpointState(e)}</dd>
    !${e.previousSecretExpiresAt && Date.parse(e.previousSecretExpiresAt) > Date.now() ? html`<dt>Previous secret</dt><dd>still signs until !${when(e.previousSecretExpiresAt)}</dd>` : ''}
  </dl>
  <div>
    !${e.disabledAt ? action('enable', 'Enable again') : action('test', 'Send a test event')}
    !${action('rotate', 'Rotate signing secret')}
    <a class="button secondary" href="/dashboard/webhooks/${e.id}/remove">Remove endpoint</a>
  </div>
  <h2>Delivery log</h2>
  !${deliveryRows(ctx, e, input.deliveries)}
  <p><a href="/dashboard/webhooks">All endpoints</a></p>`;
}

export function removeEndpointPage(ctx: PageContext, endpoint: WebhookEndpoint): string {
  return html`
  <p>Remove the endpoint <code>${endpoint.url}</code> and its delivery log? Nothing more is sent to it, including deliveries still being retried.</p>
  <form method="post" action="/dashboard/webhooks/${endpoint.id}/remove" class="inline">
    !${csrfField(ctx)}
    <button type="submit" class="danger">Remove endpoint</button>
  </form>
  <a class="button secondary" href="/dashboard/webhooks/${endpoint.id}">Keep it</a>`;
}

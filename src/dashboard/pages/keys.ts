/** The keys page: a new key shown once, the account's keys (prefix, label, times), the audit trail. */
import { html } from 'ghtml';
import { shownOncePanel } from '../shown-once.js';
import { csrfField, when } from '../layout.js';
import type { Flash, PageContext } from '../layout.js';
import type { ApiKeyRecord, KeyEvent } from '../../store/roles/key-management.js';
import { MAX_LABEL_LENGTH } from '../../service/keys/managed-keys.js';

const modeName = (mode: string) => (mode === 'test' ? 'sandbox' : 'live');

function newKeyPanel(flash: Flash | null): string {
  const made = flash?.newKey;
  if (!made) return '';
  return shownOncePanel({
    id: 'new-key',
    title: html`Your new ${modeName(made.mode)} key!${made.label ? html` “${made.label}”` : ''}`,
    intro: 'Presend keeps only its hash; if you lose it, revoke it and create another.',
    label: 'New API key',
    value: made.key,
    copyLabel: 'Copy key',
  });
}

function keyRows(keys: readonly ApiKeyRecord[]): string {
  if (keys.length === 0) return html`<p>No keys yet.</p>`;
  return html`<table>
    <caption class="visually-hidden">API keys of this account</caption>
    <thead><tr><th scope="col">Key</th><th scope="col">Label</th><th scope="col">Kind</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
    <tbody>
    !${keys.map(
      (k) => html`<tr>
        <td><code>${k.displayPrefix}…</code></td>
        <td>${k.label ?? ''}</td>
        <td>${modeName(k.mode)}</td>
        <td>!${when(k.createdAt)}</td>
        <td>!${when(k.lastUsedAt)}</td>
        <td>!${
          k.revokedAt
            ? html`revoked !${when(k.revokedAt)}`
            : html`active · <a href="/dashboard/keys/${k.id}/revoke" aria-label="Revoke ${k.displayPrefix}…${k.label ? ` (${k.label})` : ''}">Revoke</a>`
        }</td>
      </tr>`,
    )}
    </tbody></table>`;
}

function auditRows(events: readonly KeyEvent[]): string {
  if (events.length === 0) return html`<p>Nothing yet.</p>`;
  return html`<table>
    <caption class="visually-hidden">Who created or revoked which key, and when</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Key</th></tr></thead>
    <tbody>
    !${events.map((e) => html`<tr><td>!${when(e.at)}</td><td>${e.actor}</td><td>${e.action}</td><td><code>${e.displayPrefix}…</code></td></tr>`)}
    </tbody></table>`;
}

export function keysPage(ctx: PageContext, input: { keys: ApiKeyRecord[]; events: KeyEvent[] }): string {
  return html`
  !${newKeyPanel(ctx.flash)}
  <h2>Create a key</h2>
  <form method="post" action="/dashboard/keys" class="stack">
    !${csrfField(ctx)}
    <div class="field">
      <label for="label">Label <span class="hint">(what the key is for, e.g. “CRM sync”)</span></label>
      <input type="text" id="label" name="label" maxlength="${MAX_LABEL_LENGTH}">
    </div>
    <fieldset>
      <legend>Kind</legend>
      <div><input type="radio" id="mode-live" name="mode" value="live" checked> <label for="mode-live">Live: verifies for real and uses credits</label></div>
      <div><input type="radio" id="mode-test" name="mode" value="test"> <label for="mode-test">Sandbox: simulated answers, no network, no credits</label></div>
    </fieldset>
    <div><button type="submit">Create key</button></div>
  </form>
  <h2>Keys</h2>
  !${keyRows(input.keys)}
  <h2>Audit trail</h2>
  !${auditRows(input.events)}`;
}

export function revokeKeyPage(ctx: PageContext, key: ApiKeyRecord): string {
  return html`
  <p>Revoke the ${modeName(key.mode)} key <code>${key.displayPrefix}…</code>!${key.label ? html` (“${key.label}”)` : ''}, created !${when(key.createdAt)}, last used !${when(key.lastUsedAt)}?</p>
  <p>Every request made with it is refused (401) from now on. This cannot be undone.</p>
  <form method="post" action="/dashboard/keys/${key.id}/revoke" class="inline">
    !${csrfField(ctx)}
    <button type="submit" class="danger">Revoke key ${key.displayPrefix}…</button>
  </form>
  <a class="button secondary" href="/dashboard/keys">Keep it</a>`;
}

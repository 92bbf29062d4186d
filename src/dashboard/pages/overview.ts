/** The overview: balance, credits used over the last 30 days (chart and table), recent batches. */
import { html } from 'ghtml';
import { count, when } from '../layout.js';
import { columnChart } from '../charts.js';
import type { Bar } from '../charts.js';
import type { CreditBalance } from '../../store/roles/ledger.js';
import type { RequestSummary } from '../../store/roles/account-views.js';

export function balanceCards(balance: CreditBalance): string {
  return html`<div class="cards">
    <div class="card"><p>Available credits</p><p class="big">${count(balance.available)}</p></div>
    <div class="card"><p>Held by running work</p><p class="big">${count(balance.held)}</p></div>
    <div class="card"><p>Used (debited)</p><p class="big">${count(balance.debited)}</p></div>
    <div class="card"><p>Granted</p><p class="big">${count(balance.granted)}</p></div>
  </div>`;
}

export function batchRows(batches: readonly RequestSummary[]): string {
  if (batches.length === 0) return html`<p>No batches yet. <a href="/dashboard/batches">Start one</a>.</p>`;
  return html`<table>
    <caption class="visually-hidden">Batches, newest first</caption>
    <thead><tr><th scope="col">Batch</th><th scope="col">Started</th><th scope="col">From</th><th scope="col">Key</th><th scope="col">State</th><th scope="col" class="num">Progress</th></tr></thead>
    <tbody>
    !${batches.map(
      (b) => html`<tr>
        <td><a href="/dashboard/batches/${b.id}">${b.id.slice(0, 8)}</a></td>
        <td>!${when(b.createdAt)}</td>
        <td>${b.mode === 'list' ? 'a list' : 'addresses sent to the API'}</td>
        <td>${b.sandbox ? 'sandbox' : 'live'}</td>
        <td>${b.state}</td>
        <td class="num">${count(b.final)} / ${count(b.unique)}</td>
      </tr>`,
    )}
    </tbody></table>`;
}

/** An empty chart says nothing a sentence does not say better: drawn only once credits were used. */
function usageChart(usage: readonly Bar[], used: number): string {
  return html`<figure class="chart">
    !${columnChart('Credits used per day, last 30 days (UTC)', usage, { labelEvery: 5 })}
    <figcaption>${count(used)} credits used in the last 30 days.</figcaption>
  </figure>
  <details>
    <summary>Credits used per day, as a table</summary>
    <table>
      <thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Credits</th></tr></thead>
      <tbody>!${usage.map((b) => html`<tr><td>${b.label}</td><td class="num">${count(b.value)}</td></tr>`)}</tbody>
    </table>
  </details>`;
}

export function overviewPage(input: { balance: CreditBalance; usage: Bar[]; batches: RequestSummary[] }): string {
  const used = input.usage.reduce((s, b) => s + b.value, 0);
  return html`
  <h2>Balance</h2>
  !${balanceCards(input.balance)}
  <h2>Credits used, last 30 days</h2>
  !${used === 0 ? html`<p>No credits used in the last 30 days.</p>` : usageChart(input.usage, used)}
  <h2>Recent batches</h2>
  !${batchRows(input.batches)}
  <p><a href="/dashboard/batches">All batches</a> · <a href="/dashboard/usage">The credits ledger</a></p>`;
}

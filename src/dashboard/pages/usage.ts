/** The usage page: the credits ledger (grants, holds, debits, releases), newest first, with a CSV export. */
import { html } from 'ghtml';
import { count, when } from '../layout.js';
import { balanceCards } from './overview.js';
import type { LedgerEntry } from '../../store/roles/account-views.js';
import type { CreditBalance } from '../../store/roles/ledger.js';

export const LEDGER_KIND_TEXT: Record<LedgerEntry['kind'], string> = {
  grant: 'Granted',
  hold: 'Held',
  debit: 'Debited',
  release: 'Released',
};

function forWhat(e: LedgerEntry): string {
  if (e.requestId) return html`batch <a href="/dashboard/batches/${e.requestId}">${e.requestId.slice(0, 8)}</a>`;
  if (e.verificationId) return html`single check <code>${e.verificationId.slice(0, 8)}</code>`;
  return '';
}

export function usagePage(input: { balance: CreditBalance; entries: LedgerEntry[]; olderHref: string | null }): string {
  return html`
  !${balanceCards(input.balance)}
  <p>Every movement of credits: a <strong>grant</strong> adds credits; a batch or a check <strong>holds</strong> one per address while it runs;
  each hold then becomes a <strong>debit</strong> (an actionable verdict) or a <strong>release</strong> (unknown or other non-verdict outcomes are free).</p>
  <p><a class="button secondary" href="/dashboard/usage.csv" download>Download the ledger (CSV)</a></p>
  <h2>Ledger</h2>
  !${
    input.entries.length === 0
      ? html`<p>No credit movements yet.</p>`
      : html`<table>
    <caption class="visually-hidden">Credits ledger, newest first</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Movement</th><th scope="col" class="num">Credits</th><th scope="col">For</th></tr></thead>
    <tbody>!${input.entries.map((e) => html`<tr><td>!${when(e.createdAt)}</td><td>${LEDGER_KIND_TEXT[e.kind]}</td><td class="num">${count(e.credits)}</td><td>!${forWhat(e)}</td></tr>`)}</tbody>
  </table>`
  }
  !${input.olderHref ? html`<p><a href="${input.olderHref}">Older entries</a></p>` : ''}`;
}

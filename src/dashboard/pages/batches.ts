/** The batches pages: the list of batches with the form to start one, the cost confirmation, and one batch with its live progress, verdicts and downloads. */
import { html } from 'ghtml';
import { count, csrfField, when } from '../layout.js';
import type { PageContext } from '../layout.js';
import { barChart } from '../charts.js';
import { batchProgress } from '../batch-progress.js';
import { batchRows } from './overview.js';
import { uploadForm } from './lists.js';
import { decisionText, verdictText } from '../explain.js';
import { explainAddressForm } from './batch-address.js';
import { keyOption } from './key-option.js';
import type { BatchCost } from '../../service/batches/batch-cost.js';
import type { ListOverview } from '../../store/roles/list-files.js';
import type { RequestSummary, VerdictCount } from '../../store/roles/account-views.js';
import type { ApiKeyRecord } from '../../store/roles/key-management.js';
import type { BatchRequestView } from '../../store/roles/batches/batch-records.js';
import type { CreditBalance } from '../../store/roles/ledger.js';
import type { Counters } from '../../store/batch-request.js';

function startForms(ctx: PageContext, lists: readonly ListOverview[], keys: readonly ApiKeyRecord[], maxUploadMb: number): string {
  const ready = lists.filter((l) => l.state === 'ready');
  if (keys.length === 0) return html`<p>Create an <a href="/dashboard/keys">API key</a> first: a batch runs on a key, live or sandbox.</p>`;
  return html`
  <h2>Start a batch from a list</h2>
  !${
    ready.length === 0
      ? html`<p>No list is ready yet. <a href="/dashboard/lists">Upload one</a>, or start from a file below.</p>`
      : html`<form method="get" action="/dashboard/batches/new" class="stack">
      <div class="field"><label for="list">List</label>
        <select id="list" name="list">!${ready.map((l) => html`<option value="${l.id}">${l.name ?? l.id} (${count(l.entries)} rows)</option>`)}</select></div>
      <div class="field"><label for="key">Run with key</label>
        <select id="key" name="key">!${keys.map((k, i) => keyOption(k, i === 0))}</select></div>
      <div><button type="submit">See the cost</button></div>
    </form>`
  }
  <h2>Start a batch from a file</h2>
  !${uploadForm(ctx, { then: 'batch', maxUploadMb })}`;
}

export function batchesPage(ctx: PageContext, input: { batches: RequestSummary[]; lists: ListOverview[]; keys: ApiKeyRecord[]; olderHref: string | null; maxUploadMb: number }): string {
  return html`
  !${startForms(ctx, input.lists, input.keys, input.maxUploadMb)}
  <h2>Batches</h2>
  !${batchRows(input.batches)}
  !${input.olderHref ? html`<p><a href="${input.olderHref}">Older batches</a></p>` : ''}`;
}

export function confirmBatchPage(
  ctx: PageContext,
  input: { cost: BatchCost; key: ApiKeyRecord; keys: ApiKeyRecord[]; balance: CreditBalance; idempotencyToken: string; error: string | null },
): string {
  const { cost, key, balance } = input;
  const short = cost.creditsHeld > balance.available;
  return html`
  !${input.error ? html`<p class="error-message" role="alert">${input.error}</p>` : ''}
  <table>
    <caption class="visually-hidden">What the batch will verify and hold</caption>
    <tbody>
      <tr><th scope="row">List</th><td>${cost.list.name ?? cost.list.id}</td></tr>
      <tr><th scope="row">Rows in the list</th><td class="num">${count(cost.entries)}</td></tr>
      <tr><th scope="row">Unique addresses to verify</th><td class="num">${count(cost.unique)}</td></tr>
      <tr><th scope="row">Not addresses (rejected, free)</th><td class="num">${count(cost.invalid)}</td></tr>
      <tr><th scope="row">Key</th><td>${key.mode === 'test' ? 'Sandbox' : 'Live'} key ${key.displayPrefix}…${key.label ? ` (${key.label})` : ''}</td></tr>
      <tr><th scope="row">Credits to be held</th><td class="num"><strong>${count(cost.creditsHeld)}</strong></td></tr>
      !${cost.creditsReturned > 0 ? html`<tr><th scope="row">Of which come back once the list is written (duplicates, not addresses)</th><td class="num">${count(cost.creditsReturned)}</td></tr>` : ''}
      <tr><th scope="row">Credits available</th><td class="num">${count(balance.available)}</td></tr>
    </tbody>
  </table>
  <p class="muted">${
    key.mode === 'test'
      ? 'A sandbox batch is simulated and uses no credits.'
      : 'Each held credit becomes a debit for an actionable verdict, or is released for an unknown or other non-verdict outcome.'
  }</p>
  !${
    short
      ? html`<p class="error-message" role="alert">Not enough credits: this batch needs ${count(cost.creditsHeld)}, ${count(balance.available)} are available.</p>`
      : html`<form method="post" action="/dashboard/batches" class="inline">
      !${csrfField(ctx)}
      <input type="hidden" name="list" value="${cost.list.id}">
      <input type="hidden" name="key" value="${key.id}">
      <input type="hidden" name="idempotency" value="${input.idempotencyToken}">
      <button type="submit">Start batch (hold ${count(cost.creditsHeld)} credits)</button>
    </form>`
  }
  <a class="button secondary" href="/dashboard/batches">Cancel</a>
  <h2>Another key</h2>
  <form method="get" action="/dashboard/batches/new" class="stack">
    <input type="hidden" name="list" value="${cost.list.id}">
    <div class="field"><label for="other-key">Run with key</label>
      <select id="other-key" name="key">!${input.keys.map((k) => keyOption(k, k.id === key.id))}</select></div>
    <div><button type="submit" class="secondary">See the cost with this key</button></div>
  </form>`;
}

const DECISION_COUNTERS: Array<[keyof Counters, string]> = [
  ['send', decisionText('send')],
  ['suppress', decisionText('suppress')],
  ['sendWithCaution', decisionText('send_with_caution')],
  ['enrichFirst', decisionText('enrich_first')],
  ['recheckLater', decisionText('recheck_later')],
  ['manualReview', decisionText('manual_review')],
  ['doNotDecide', decisionText('do_not_decide')],
];

const PROGRESS_COUNTERS: Array<[keyof Counters, string]> = [
  ['total', 'Addresses given'],
  ['unique', 'Unique addresses'],
  ['duplicates', 'Duplicates'],
  ['pending', 'Waiting'],
  ['rechecking', 'Rechecking (greylisted)'],
  ['completed', 'Completed'],
  ['creditsHeld', 'Credits held'],
  ['creditsDebited', 'Credits debited'],
  ['creditsReleased', 'Credits released'],
];

function counterTable(caption: string, counters: Counters, rows: Array<[keyof Counters, string]>, more = ''): string {
  return html`<table>
    <caption>${caption}</caption>
    <tbody>!${rows.map(([name, label]) => html`<tr><th scope="row">${label}</th><td class="num" data-counter="${name}">${counters[name]}</td></tr>`)}!${more}</tbody>
  </table>`;
}

/**
 * The API's `failed` counter counts the entries rejected by the syntax check with the items the
 * engine failed on (both end without a verdict): told apart here, by their decision (a rejection
 * is `suppress`, a failure `do_not_decide`), so a finished batch does not show "not an address"
 * as "Failed".
 */
function rejectedCount(verdicts: readonly VerdictCount[]): number {
  return verdicts.filter((v) => v.verdict === null && v.decision === 'suppress').reduce((s, v) => s + v.count, 0);
}

function endedWithoutVerdict(c: Counters, rejected: number): string {
  return html`<tr><th scope="row">Not addresses (rejected, never billed)</th><td class="num">${rejected}</td></tr>
    <tr><th scope="row">Failed (the engine could not check them)</th><td class="num">${Math.max(0, c.failed - rejected)}</td></tr>`;
}

const noVerdictText = (v: VerdictCount): string => (v.decision === 'suppress' ? 'Not an address (rejected)' : 'No verdict (failed)');

export const DOWNLOAD_SETS = [
  ['send', 'Only the rows to send'],
  ['suppress', 'Only the rows to suppress'],
  ['risky', 'Only the risky rows (send with caution, review, fix first)'],
  ['unknown', 'Only the unknown rows (recheck later, no decision)'],
] as const;

function downloads(view: BatchRequestView, joined: boolean): string {
  if (view.state !== 'completed') return html`<p>The results can be downloaded once the batch is complete.</p>`;
  const base = `/dashboard/batches/${view.id}/results`;
  return html`<p>${
    joined
      ? 'Your own file back, one row per row you uploaded, in the same order, your columns kept and the result columns added.'
      : 'One row per unique address (this batch did not come from an uploaded file).'
  }</p>
  <ul>
    <li><a href="${base}">Download all results</a></li>
    !${DOWNLOAD_SETS.map(([set, label]) => html`<li><a href="${base}?only=${set}">${label}</a></li>`)}
  </ul>`;
}

export function batchPage(input: {
  view: BatchRequestView;
  verdicts: VerdictCount[];
  listName: string | null;
  joined: boolean;
  listRowsWritten: number | null;
  /** The first final addresses, linked to their explanations. */
  firstAddresses?: ReadonlyArray<{ email: string; verdict: string | null }>;
}): string {
  const { view } = input;
  const c = view.counters;
  const final = view.state === 'completed' || view.state === 'failed';
  const byVerdict = new Map<string, number>();
  for (const v of input.verdicts) {
    const label = v.verdict === null ? noVerdictText(v) : verdictText(v.verdict);
    byVerdict.set(label, (byVerdict.get(label) ?? 0) + v.count);
  }
  const bars = [...byVerdict].sort((a, b) => b[1] - a[1]).map(([label, value]) => ({ label, value }));
  const progress = batchProgress(view.state, c, input.listRowsWritten, view.waitingForRoute);
  return html`
  <p>State: <strong data-batch-state>${view.state}</strong> · started !${when(view.createdAt)} · ${view.sandbox ? 'sandbox key' : 'live key'}${
    input.listName ? ` · list ${input.listName}` : ''
  }${view.errorCode ? ` · error ${view.errorCode}` : ''}</p>
  <div!${final ? '' : html` data-batch-events="/dashboard/batches/${view.id}/events"`}>
    <label for="batch-progress">Progress</label>
    <progress id="batch-progress" max="${progress.max}" value="${progress.value}">${Math.floor((100 * progress.value) / progress.max)} %</progress>
    <p data-progress-text role="status">${progress.text}</p>
  </div>
  <h2>Decisions</h2>
  !${counterTable('Addresses by decision', c, DECISION_COUNTERS)}
  <h2>Verdicts</h2>
  !${
    bars.length === 0
      ? html`<p>${final ? 'No verdicts.' : 'The verdicts are charted here as addresses become final; the decisions above count them as they come.'}</p>`
      : html`<figure class="chart">!${barChart(final ? 'Verdicts of this batch' : 'Verdicts of this batch so far', bars)}<figcaption>Final addresses by verdict${final ? '' : ' when this page was loaded; it is redrawn when the batch ends'}.</figcaption></figure>
    <table><caption class="visually-hidden">Final addresses by verdict</caption>
      <thead><tr><th scope="col">Verdict</th><th scope="col" class="num">Addresses</th></tr></thead>
      <tbody>!${bars.map((b) => html`<tr><td>${b.label}</td><td class="num">${b.value}</td></tr>`)}</tbody></table>`
  }
  <h2>Progress in numbers</h2>
  <p data-fill-note!${progress.filling ? '' : ' hidden'}>The list is still being read into the batch: the unique addresses and duplicates grow until it is.</p>
  !${counterTable('Counters of this batch', c, PROGRESS_COUNTERS, endedWithoutVerdict(c, rejectedCount(input.verdicts)))}
  <h2>Download</h2>
  !${downloads(view, input.joined)}
  !${explainAddressForm(view.id, input.firstAddresses ?? [])}`;
}

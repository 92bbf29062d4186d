/** The lists pages: upload (with progress), the lists, one list with its import state and bad rows, and deleting one. */
import { html } from 'ghtml';
import { count, csrfField, when } from '../layout.js';
import type { PageContext } from '../layout.js';
import type { BadRow, ListFile, ListOverview } from '../../store/roles/list-files.js';
import type { ListRecord } from '../../store/roles/lists.js';

const ACCEPT = '.csv,.tsv,.txt,.xlsx,text/csv,text/tab-separated-values,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The upload form; the form token rides in the URL too, since a multipart body is read only after the check. */
export function uploadForm(ctx: PageContext, options: { then: 'list' | 'batch'; maxUploadMb: number }): string {
  return html`<form method="post" action="/dashboard/lists?_csrf=${encodeURIComponent(ctx.csrf)}" enctype="multipart/form-data" class="stack" data-upload data-csrf="${ctx.csrf}">
    <input type="hidden" name="then" value="${options.then}">
    <div class="field"><label for="list-name">List name <span class="hint">(optional; the file name otherwise)</span></label>
      <input type="text" id="list-name" name="name" maxlength="200"></div>
    <div class="field"><label for="list-column">Address column <span class="hint">(optional: a header name or a number from 1; found by itself otherwise)</span></label>
      <input type="text" id="list-column" name="column" maxlength="200"></div>
    <div class="field"><label for="list-file">CSV, TSV or XLSX file <span class="hint">(up to ${options.maxUploadMb} MB; other columns are kept for the results)</span></label>
      <input type="file" id="list-file" name="file" accept="${ACCEPT}" required></div>
    <div><button type="submit">${options.then === 'batch' ? 'Upload and see the cost' : 'Upload list'}</button></div>
    <progress hidden max="1" value="0" aria-label="Upload progress"></progress>
    <p data-upload-status role="status"></p>
  </form>`;
}

function state(list: { state: string; file: ListFile | null }): string {
  if (list.state === 'importing' && list.file?.columnChoices) return 'waiting for the address column';
  return list.state;
}

export function listsPage(ctx: PageContext, input: { lists: ListOverview[]; maxUploadMb: number }): string {
  return html`
  <h2>Upload a list</h2>
  !${uploadForm(ctx, { then: 'list', maxUploadMb: input.maxUploadMb })}
  <h2>Lists</h2>
  !${
    input.lists.length === 0
      ? html`<p>No lists yet.</p>`
      : html`<table>
    <caption class="visually-hidden">Lists of this account, newest first</caption>
    <thead><tr><th scope="col">List</th><th scope="col">Uploaded</th><th scope="col">State</th><th scope="col" class="num">Rows kept</th><th scope="col" class="num">Bad rows</th></tr></thead>
    <tbody>!${input.lists.map(
      (l) => html`<tr><td><a href="/dashboard/lists/${l.id}">${l.name ?? l.id}</a></td><td>!${when(l.createdAt)}</td><td>${state(l)}</td>
        <td class="num">${count(l.entries)}</td><td class="num">${l.file ? count(l.file.badRows) : ''}</td></tr>`,
    )}</tbody></table>`
  }`;
}

function columnChoice(ctx: PageContext, list: ListRecord, file: ListFile): string {
  return html`<form method="post" action="/dashboard/lists/${list.id}/column" class="stack">
    !${csrfField(ctx)}
    <fieldset>
      <legend>Several columns hold addresses. Which one should be verified?</legend>
      !${(file.columnChoices ?? []).map(
        (c, i) => html`<div><input type="radio" id="column-${c.index}" name="column" value="${c.index}"!${i === 0 ? ' checked' : ''}>
          <label for="column-${c.index}">${c.label}</label> <span class="hint">e.g. ${c.samples.join(', ')}</span></div>`,
      )}
    </fieldset>
    <div><button type="submit">Import this column</button></div>
  </form>`;
}

function badRowsTable(file: ListFile, rows: readonly BadRow[]): string {
  if (file.badRows === 0) return html`<p>Every row with an address cell holds an address.</p>`;
  return html`<p>${count(file.badRows)} row${file.badRows === 1 ? '' : 's'} could not be used as given${
    file.badRows > rows.length ? ` (the first ${rows.length} are listed)` : ''
  }. Invalid addresses are kept in the list and come back as rejected (decision suppress, never billed); rows without an address are skipped.</p>
  <table>
    <caption class="visually-hidden">Rows that are not addresses, with their line in the file</caption>
    <thead><tr><th scope="col" class="num">Line</th><th scope="col">Address cell</th><th scope="col">Problem</th></tr></thead>
    <tbody>!${rows.map((r) => html`<tr><td class="num">${r.line}</td><td><code>${r.value}</code></td><td>${r.problem}</td></tr>`)}</tbody>
  </table>`;
}

/**
 * What a ready list holds. Its entries include the cells that are not addresses (kept, so a
 * results file keeps its rows; they come back rejected, never billed): counting them as
 * addresses said "30 addresses" for 26.
 */
function readyCounts(list: ListRecord, counts: ListCounts | null): string {
  if (!counts || counts.invalid === 0) return `${count(list.entries)} addresses, ready to verify.`;
  return `${count(counts.entries - counts.invalid)} addresses, ready to verify — and ${count(counts.invalid)} ${counts.invalid === 1 ? 'row that is not an address' : 'rows that are not addresses'}, kept: ${counts.invalid === 1 ? 'it comes' : 'they come'} back rejected, never billed.`;
}

/** A ready list's entries, and how many of them fail the syntax check. */
export interface ListCounts {
  entries: number;
  invalid: number;
}

export function listPage(ctx: PageContext, input: { list: ListRecord; file: ListFile | null; badRows: BadRow[]; counts: ListCounts | null }): string {
  const { list, file } = input;
  const waiting = list.state === 'importing' && file?.columnChoices;
  return html`
  <p>State: <strong>${state({ state: list.state, file })}</strong> · uploaded !${when(list.createdAt)}${file ? ` by ${file.uploadedBy} from ${file.fileName}` : ''}</p>
  !${
    list.state === 'importing'
      ? html`<div data-list-state="/dashboard/lists/${list.id}/state" data-state="${list.state}" data-choice="${waiting ? 'true' : 'false'}">
          !${waiting && file ? columnChoice(ctx, list, file) : html`<p role="status">Importing: ${count(list.entries)} rows so far. This page updates by itself.</p>`}</div>`
      : ''
  }
  !${
    list.state === 'failed'
      ? html`<p class="error-message" role="alert">The import failed${file?.errorLine ? ` at line ${file.errorLine}` : ''}: ${file?.error ?? 'the file could not be read'}.</p>`
      : ''
  }
  !${
    list.state === 'ready'
      ? html`<p>${readyCounts(list, input.counts)} <a class="button" href="/dashboard/batches/new?list=${list.id}">Start a batch from this list</a></p>`
      : ''
  }
  !${file && !waiting ? html`<h2>Bad rows</h2>!${badRowsTable(file, input.badRows)}` : ''}
  <h2>Delete</h2>
  <p><a href="/dashboard/lists/${list.id}/delete">Delete this list</a></p>`;
}

export function deleteListPage(ctx: PageContext, list: ListRecord): string {
  return html`<p>Delete the list <strong>${list.name ?? list.id}</strong> (${count(list.entries)} rows) and its uploaded file?
  Batches already run from it keep their results, but their downloads then have one row per address instead of your file's rows.</p>
  <form method="post" action="/dashboard/lists/${list.id}/delete" class="inline">
    !${csrfField(ctx)}
    <button type="submit" class="danger">Delete list</button>
  </form>
  <a class="button secondary" href="/dashboard/lists/${list.id}">Keep it</a>`;
}

/**
 * The second pass: the caller's file again, row by row in file order, each row with every one
 * of its own cells (padded to the widest row, so the result columns line up) followed by
 * Presend's result columns. Duplicates and blank rows are kept; `only` keeps the rows of the
 * chosen sets. A file without a header row gets one (`column_1`, `column_2`, …), since the
 * added columns need names; a file that already carries Presend's result columns (an earlier
 * results file) has them replaced rather than repeated.
 */
import { AddressRows, type AddressRow } from './address-rows.js';
import type { OpenedTable } from './open-table.js';
import { rowSet, type RowSet } from './only-filter.js';
import { RESULT_COLUMNS, isResultColumn, resultCells, rowSummary, type ResultSummary } from './result-columns.js';
import type { TableWriter } from './table-writer-contract.js';

export interface JoinOptions {
  /** The widest row of the first pass. */
  width: number;
  /** Results by normalised address. */
  results: ReadonlyMap<string, ResultSummary>;
  only?: ReadonlySet<RowSet>;
  writer: TableWriter;
  /** Called for every row written (JSON output uses it instead of a writer). */
  onRow?: (row: AddressRow, summary: ResultSummary | null) => void;
}

/** The original columns that stay: all but earlier Presend result columns. */
export function keptColumns(header: readonly string[] | null, width: number): number[] {
  const kept: number[] = [];
  for (let i = 0; i < width; i++) if (!header || !isResultColumn(header[i] ?? '')) kept.push(i);
  return kept;
}

export function outputHeader(header: readonly string[] | null, kept: readonly number[]): string[] {
  return [...kept.map((i) => (header ? (header[i] ?? '') : `column_${i + 1}`)), ...RESULT_COLUMNS];
}

export async function writeJoinedTable(table: OpenedTable, options: JoinOptions): Promise<{ rows: number; replacedColumns: number }> {
  const { header, emailColumn } = table.layout;
  const kept = keptColumns(header, options.width);
  const classifier = new AddressRows(emailColumn);
  await options.writer.writeRow(outputHeader(header, kept));
  let rows = 0;
  for await (const row of table.rows) {
    const classified = classifier.classify(row);
    const summary = rowSummary(classified, options.results);
    if (options.only) {
      const set = rowSet(classified, summary);
      if (set === null || !options.only.has(set)) continue;
    }
    options.onRow?.(classified, summary);
    await options.writer.writeRow([...kept.map((i) => row.cells[i] ?? ''), ...resultCells(classified, summary)]);
    rows += 1;
  }
  await options.writer.finish();
  return { rows, replacedColumns: options.width - kept.length };
}

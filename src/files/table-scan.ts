/**
 * The first pass over a file: every data row classified (address-rows.ts), the widest row
 * measured (so the second pass can line every row up under one header), and the invalid rows
 * noted with their lines — the first `keepInvalid` of them in full, the rest counted.
 */
import { AddressRows, describeSyntaxError, type AddressRow, type RowCounts } from './address-rows.js';
import type { OpenedTable, TableLayout } from './open-table.js';

export interface InvalidRow {
  line: number;
  email: string;
  error: string;
}

export interface TableScan {
  layout: TableLayout;
  counts: RowCounts;
  /** Cells in the widest row (the header included). */
  width: number;
  /** Every valid address once, normalised, in the order first seen. */
  unique: string[];
  /** The first invalid rows, with line and reason. */
  invalid: InvalidRow[];
  blankBeforeHeader: number;
}

export async function scanTable(table: OpenedTable, options: { keepInvalid?: number; onRow?: (row: AddressRow) => void | Promise<void> } = {}): Promise<TableScan> {
  const keepInvalid = options.keepInvalid ?? 100;
  const classifier = new AddressRows(table.layout.emailColumn);
  let width = Math.max(table.layout.header?.length ?? 0, table.layout.emailColumn + 1);
  const invalid: InvalidRow[] = [];
  for await (const row of table.rows) {
    const classified = classifier.classify(row);
    width = Math.max(width, row.cells.length);
    if (classified.kind === 'invalid' && invalid.length < keepInvalid && classified.error) {
      invalid.push({ line: row.line, email: classified.given, error: describeSyntaxError(classified.given, classified.error) });
    }
    await options.onRow?.(classified);
  }
  return { layout: table.layout, counts: classifier.counts, width, unique: classifier.uniqueAddresses(), invalid, blankBeforeHeader: table.blankBeforeHeader };
}

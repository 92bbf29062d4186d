/**
 * What a stored list keeps of a table, by one rule for `presend lists import` and the
 * dashboard's upload: every row with something in its address cell, in file order — valid
 * addresses, duplicates and invalid ones alike (verifying the list marks an invalid one
 * rejected, docs/design.md §5) — while blank rows and rows with an empty address cell are skipped.
 * The rows a person should look at (invalid, or no address) are reported with their line.
 */
import { describeSyntaxError, type AddressRows } from './address-rows.js';
import type { TableRow } from './table-row.js';

export interface RowProblem {
  line: number;
  /** The address cell as written. */
  given: string;
  kind: 'invalid' | 'no_address';
  /** In words, for the person. */
  problem: string;
}

export async function* listEntries(rows: AsyncIterable<TableRow>, classifier: AddressRows, onProblem?: (problem: RowProblem) => void | Promise<void>): AsyncGenerator<string> {
  for await (const row of rows) {
    const entry = classifier.classify(row);
    if (entry.kind === 'blank') continue;
    if (entry.error === 'empty') {
      await onProblem?.({ line: row.line, given: entry.given, kind: 'no_address', problem: 'no address in this row' });
      continue;
    }
    if (entry.kind === 'invalid' && entry.error) await onProblem?.({ line: row.line, given: entry.given, kind: 'invalid', problem: describeSyntaxError(entry.given, entry.error) });
    yield entry.given.trim();
  }
}

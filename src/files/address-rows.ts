/**
 * What each data row holds, by the same rules on every path (batch from a file, list import,
 * and later the dashboard): a blank row; a row whose address fails the syntax check the service
 * applies (src/core/syntax/address.ts, the check behind the API's 400); the first row of an
 * address; or a duplicate of an earlier row, compared by the normalised address the service
 * de-duplicates on (docs/design.md §4, "batch duplicates"). Spaces around the address are trimmed
 * and counted, so the report can say so.
 */
import { parseAddress, type SyntaxError } from '../core/syntax/address.js';
import { addressFromCell } from '../core/syntax/list-cell.js';
import { describeSyntaxError as describeSyntax } from '../core/syntax/problems.js';
import { isBlankRow, type TableRow } from './table-row.js';

export type RowKind = 'address' | 'duplicate' | 'invalid' | 'blank';

export interface AddressRow {
  row: TableRow;
  kind: RowKind;
  /** The address cell exactly as written. */
  given: string;
  /** The form the service verifies and answers with (domain lower-cased and IDNA-encoded); null for invalid and blank rows. */
  normalized: string | null;
  /** Why the address is invalid (`empty` when the row has data but no address). */
  error: SyntaxError | null;
  /** For a duplicate: the line of the first row with the same address. */
  duplicateOf: number | null;
  /** The address had spaces around it, which were removed before checking it. */
  trimmed: boolean;
}

export interface RowCounts {
  /** Data rows, blank ones included. */
  rows: number;
  /** Rows with a valid address, duplicates included. */
  addresses: number;
  unique: number;
  duplicates: number;
  invalid: number;
  blank: number;
  /** Addresses that had spaces around them. */
  trimmed: number;
}

/** "missing_at: it has no @" — the code for scripts, the words (src/core/syntax/problems.ts) for people. */
export function describeSyntaxError(given: string, error: SyntaxError): string {
  return `${error}: ${describeSyntax(addressFromCell(given).address, error)}`;
}

export class AddressRows {
  readonly #first = new Map<string, number>();
  readonly counts: RowCounts = { rows: 0, addresses: 0, unique: 0, duplicates: 0, invalid: 0, blank: 0, trimmed: 0 };

  constructor(private readonly column: number) {}

  classify(row: TableRow): AddressRow {
    this.counts.rows += 1;
    const given = row.cells[this.column] ?? '';
    const base = { row, given, normalized: null, error: null, duplicateOf: null, trimmed: false };
    if (isBlankRow(row)) {
      this.counts.blank += 1;
      return { ...base, kind: 'blank' };
    }
    // Spaces and tabs that pad a cell are layout, not address (src/core/syntax/list-cell.ts).
    const cell = addressFromCell(given);
    const address = cell.address;
    const trimmed = address !== '' && cell.trimmed;
    if (trimmed) this.counts.trimmed += 1;
    const parsed = parseAddress(address);
    if (!parsed.ok) {
      this.counts.invalid += 1;
      return { ...base, kind: 'invalid', error: parsed.error, trimmed };
    }
    const normalized = parsed.address.normalized;
    this.counts.addresses += 1;
    const first = this.#first.get(normalized);
    if (first !== undefined) {
      this.counts.duplicates += 1;
      return { ...base, kind: 'duplicate', normalized, duplicateOf: first, trimmed };
    }
    this.#first.set(normalized, row.line);
    this.counts.unique += 1;
    return { ...base, kind: 'address', normalized, trimmed };
  }

  /** Every valid address once, in the order first seen. */
  uniqueAddresses(): string[] {
    return [...this.#first.keys()];
  }
}

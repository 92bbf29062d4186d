/**
 * What each data row holds, by the same rules on every path (batch from a file, list import,
 * and later the dashboard): a blank row; a row whose address fails the syntax check the service
 * applies (src/core/syntax/address.ts, the check behind the API's 400); the first row of an
 * address; or a duplicate of an earlier row, compared by the normalised address the service
 * de-duplicates on (docs/design.md §4, "batch duplicates"). Spaces around the address are trimmed
 * and counted, so the report can say so.
 */
import { parseAddress, type SyntaxError } from '../core/syntax/address.js';
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

const MESSAGES: Record<SyntaxError, string> = {
  empty: 'no address in this row',
  too_long: 'longer than 320 characters',
  missing_at: 'no @ sign',
  display_name: 'a display name ("Name <a@b>"), not a bare address',
  comment: 'a comment in parentheses',
  control_character: 'a control character',
  malformed_unicode: 'malformed Unicode',
  empty_local_part: 'nothing before the @',
  local_part_too_long: 'more than 64 characters before the @',
  invalid_local_part: 'a character not allowed before the @',
  leading_dot: 'starts with a dot',
  trailing_dot: 'a dot right before the @',
  consecutive_dots: 'two dots in a row',
  unclosed_quote: 'an unclosed quote',
  invalid_quoted_string: 'an invalid quoted local part',
  domain_literal: 'an IP address instead of a domain',
  empty_domain: 'nothing after the @',
  domain_too_long: 'a domain longer than 255 characters',
  label_too_long: 'a domain label longer than 63 characters',
  empty_label: 'an empty domain label (two dots)',
  invalid_domain: 'a character not allowed in a domain',
  domain_needs_dot: 'a domain without a dot',
  numeric_tld: 'a numeric top-level domain',
};

export function describeSyntaxError(error: SyntaxError): string {
  return `${error}: ${MESSAGES[error]}`;
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
    const address = given.trim();
    const trimmed = address !== '' && address !== given;
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

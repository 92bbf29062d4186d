/**
 * Which row is the header and which column holds the addresses, decided from the first rows.
 *
 * - Header names are compared case-, space-, `_`-, `-`- and `.`-insensitively, so `Email`,
 *   `E-mail`, `email_address`, `Email Address` and ` EMAIL ` all name the address column.
 * - The first non-blank row is a header when it names an address column, or when none of its
 *   cells looks like an address while a later row has one. Otherwise the file has no header.
 * - The address column is `--column` (a header name, or a number from 1), else the first
 *   header that names one, else the column where the most cells look like addresses.
 */
import { TableError } from './errors.js';
import { isBlankRow, type TableRow } from './table-row.js';

const ADDRESS_HEADERS = new Set(['email', 'emails', 'emailaddress', 'emailaddresses', 'emailaddr', 'mail', 'mailaddress', 'emailid', 'courriel', 'correo', 'correoelectronico']);

export function normaliseHeader(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\s_\-.]+/g, '');
}

export function namesAddressColumn(header: string): boolean {
  return ADDRESS_HEADERS.has(normaliseHeader(header));
}

/** Something@something: enough to tell a data row from a header row, not a syntax check. */
export function looksLikeAddress(cell: string): boolean {
  return /\S@\S/.test(cell);
}

export interface ColumnChoice {
  /** Index of the header row among the sample rows, or null when the file has no header. */
  headerIndex: number | null;
  column: number;
  label: string;
}

function columnLabel(header: readonly string[] | null, column: number): string {
  const name = header?.[column]?.trim();
  return name ? `"${name}"` : `column ${column + 1}`;
}

function mostAddressLike(rows: readonly TableRow[]): number | null {
  const counts: number[] = [];
  for (const row of rows) row.cells.forEach((cell, i) => (counts[i] = (counts[i] ?? 0) + (looksLikeAddress(cell) ? 1 : 0)));
  let best: number | null = null;
  counts.forEach((count, i) => {
    if (count > 0 && (best === null || count > (counts[best] ?? 0))) best = i;
  });
  return best;
}

export function chooseColumn(sample: readonly TableRow[], options: { column?: string; header?: boolean }): ColumnChoice {
  const firstIndex = sample.findIndex((row) => !isBlankRow(row));
  if (firstIndex === -1) throw new TableError('empty_file', 'the file has no rows');
  const first = sample[firstIndex] as TableRow;
  const later = sample.slice(firstIndex + 1);
  const byNumber = options.column !== undefined && /^\d+$/.test(options.column.trim()) ? Number(options.column.trim()) : null;
  const byName = options.column !== undefined && byNumber === null ? options.column : null;

  const hasHeader =
    options.header ??
    (byName !== null ||
      first.cells.some(namesAddressColumn) ||
      (!first.cells.some(looksLikeAddress) && later.some((row) => row.cells.some(looksLikeAddress))));
  const header = hasHeader ? first.cells : null;
  const headerIndex = hasHeader ? firstIndex : null;
  const data = hasHeader ? later : sample.slice(firstIndex);

  if (byNumber !== null) {
    if (byNumber < 1) throw new TableError('unknown_column', '--column numbers start at 1');
    return { headerIndex, column: byNumber - 1, label: columnLabel(header, byNumber - 1) };
  }
  if (byName !== null) {
    const wanted = normaliseHeader(byName);
    const exact = (header ?? []).findIndex((cell) => cell.trim().toLowerCase() === byName.trim().toLowerCase());
    const column = exact !== -1 ? exact : (header ?? []).findIndex((cell) => normaliseHeader(cell) === wanted);
    if (column === -1) {
      const names = (header ?? []).map((cell) => `"${cell.trim()}"`).join(', ');
      throw new TableError('unknown_column', `no column named "${byName}"; the header has ${names || 'no names'}`, first.line);
    }
    return { headerIndex, column, label: columnLabel(header, column) };
  }
  const named = header ? header.findIndex(namesAddressColumn) : -1;
  if (named !== -1) return { headerIndex, column: named, label: columnLabel(header, named) };
  const guessed = mostAddressLike(data);
  if (guessed !== null) return { headerIndex, column: guessed, label: columnLabel(header, guessed) };
  // One column and nothing address-like: the addresses may all be bad; they are still the addresses.
  const width = Math.max(...sample.map((row) => row.cells.length));
  if (width <= 1) return { headerIndex, column: 0, label: columnLabel(header, 0) };
  throw new TableError('no_email_column', 'no column holds email addresses; name it with --column NAME or --column NUMBER');
}

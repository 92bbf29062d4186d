/**
 * An address taken from a list or CSV cell. Unlike the API (where an address wrapped in white
 * space is refused), a file import may trim the spaces and tabs that pad a cell — they belong
 * to the file's layout, not to the address — and must say that it did. Line breaks, no-break
 * spaces and byte order marks are not padding: they stay, and the syntax check names them.
 */
const CELL_PADDING = /^[ \t]+|[ \t]+$/g;

export interface CellAddress {
  address: string;
  /** True when padding was removed, so the import can report it (e.g. "line 12: spaces trimmed"). */
  trimmed: boolean;
}

export function addressFromCell(cell: string): CellAddress {
  const address = cell.replace(CELL_PADDING, '');
  return { address, trimmed: address.length !== cell.length };
}

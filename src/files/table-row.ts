/** One row of a table as read from a file. */
export interface TableRow {
  /**
   * Where the row starts in the file, 1-based. CSV: the physical line, counting the header and
   * every line of a multi-line quoted cell before it. XLSX: the sheet's row number.
   */
  line: number;
  /** The cells as written (not trimmed); a blank line has no cells or only empty ones. */
  cells: string[];
}

export function isBlankRow(row: TableRow): boolean {
  return row.cells.every((cell) => cell.trim() === '');
}

/**
 * Why a file cannot be read as a table. `line` is the file's own line (CSV: the physical line,
 * counting the header and every line of a multi-line quoted cell; XLSX: the sheet's row
 * number), so the person can open the file at that spot. One bad address is not a TableError:
 * it is a row with an error, kept in the output (address-rows.ts).
 */
export type TableErrorCode =
  | 'not_found'
  | 'unreadable'
  | 'unsupported_format'
  | 'unclosed_quote'
  | 'invalid_quote'
  | 'row_too_long'
  | 'malformed_csv'
  | 'malformed_xlsx'
  | 'no_email_column'
  | 'unknown_column'
  | 'empty_file'
  /** More addresses than a list may have (PRESEND_LIST_MAX_ENTRIES), or more rows than a file may have (PRESEND_FILE_MAX_ROWS). */
  | 'too_many_rows'
  /** The bounds of limits.ts: no file makes a reader hold more than a bounded amount of memory. */
  | 'file_too_large'
  | 'unzipped_too_large'
  | 'too_many_cells'
  | 'cell_too_long';

export class TableError extends Error {
  override readonly name = 'TableError';
  constructor(
    readonly code: TableErrorCode,
    message: string,
    /** The line (or sheet row) the problem is at, when there is one. */
    readonly line: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(line === null ? message : `line ${line}: ${message}`, options);
  }
}

/**
 * Rows of a CSV/TSV/semicolon file, streamed through csv-parse, each with the line it starts
 * on. csv-parse reports for every record the line it *ends* on; the next record starts on the
 * line after, so a record's start is the previous record's end + 1 — across CRLF, blank lines
 * and quoted cells that span lines (with one correction: csv-parse 6 counts a CRLF inside a
 * quoted cell twice). Errors name the line a person should look
 * at: for a quote that is never closed that is where the quoted cell starts, not the end of
 * the file where csv-parse notices it.
 */
import { Readable } from 'node:stream';
import { CsvError, parse, type Options } from 'csv-parse';
import { TableError } from './errors.js';
import { limitWords, MAX_ROW_CHARS } from './limits.js';
import type { TableRow } from './table-row.js';


function explain(error: CsvError, recordStart: number, overCounted: number): TableError {
  const at = typeof error.lines === 'number' ? Math.max(recordStart, error.lines - overCounted) : recordStart;
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new TableError('unclosed_quote', 'a quoted cell starts in this row and its closing quote (") never comes', recordStart, { cause: error });
    case 'CSV_MAX_RECORD_SIZE':
      // A record this long is a quote that swallowed the rest of the file; csv-parse stops there, so memory stays bounded.
      return new TableError('row_too_long', limitWords.row(), recordStart, { cause: error });
    case 'CSV_INVALID_CLOSING_QUOTE':
      return new TableError('invalid_quote', 'a quoted cell is followed by more text before the next delimiter; double a quote inside a quoted cell ("")', at, { cause: error });
    default:
      return new TableError('malformed_csv', error.message, at, { cause: error });
  }
}

/** csv-parse counts a CRLF inside a quoted cell as two lines; every such CRLF is one too many. */
function crlfCount(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) {
    for (let at = cell.indexOf('\r\n'); at !== -1; at = cell.indexOf('\r\n', at + 2)) count += 1;
  }
  return count;
}

export async function* readDelimitedRows(text: AsyncIterable<string>, delimiter: string): AsyncGenerator<TableRow> {
  // Lines are worked out as csv-parse finds each record (on_record runs then, in file order),
  // so an error knows where the last good record ended even if rows are still queued.
  let lastEnd = 0;
  let overCounted = 0;
  const options: Options<TableRow, string[]> = {
    delimiter,
    bom: true,
    // A quote inside an unquoted cell (O"Brien) is kept as a character rather than failing the file.
    relax_quotes: true,
    relax_column_count: true,
    max_record_size: MAX_ROW_CHARS,
    on_record: (record: string[], context: { lines: number }): TableRow => {
      const line = lastEnd + 1;
      overCounted += crlfCount(record);
      lastEnd = context.lines - overCounted;
      return { line, cells: record };
    },
  };
  // The records become TableRows in on_record; parse()'s overloads only know string[] records.
  const parser = parse(options as unknown as Options);
  const source = Readable.from(text);
  // pipe() does not pass a source's failure on; without this the parser would wait forever.
  source.once('error', (error) => parser.destroy(error));
  const feeding = source.pipe(parser);
  try {
    for await (const row of feeding as AsyncIterable<TableRow>) yield row;
  } catch (error) {
    if (error instanceof CsvError) throw explain(error, lastEnd + 1, overCounted);
    throw error;
  }
}

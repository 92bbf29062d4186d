/**
 * The bounds every table reader keeps (CSV, TSV and XLSX alike; `presend batch FILE`,
 * `presend lists import`, the dashboard's upload and its stored-file import), so that no file
 * can make a process hold more than a bounded amount of memory: a 4.4 MB workbook whose one row
 * held ten inline strings of 450 M characters each took a serving process to "heap out of
 * memory" before these bounds existed (issue 21). A file past a bound is refused with a
 * TableError that names it (errors.ts), never read on.
 *
 * Three bounds are settings (src/config.ts; docs/deploy.md, "Limits"); the others are Excel's own
 * limits (its "Excel specifications and limits" page), which no spreadsheet a person made passes,
 * and which a text table is held to as well so that both formats read alike.
 */
import { TableError } from './errors.js';

export interface TableLimits {
  /** Bytes of the file as given (PRESEND_FILE_MAX_MB). */
  maxBytes: number;
  /** Rows of the file or sheet, blank ones and the header included (PRESEND_FILE_MAX_ROWS). */
  maxRows: number;
  /** XLSX: the uncompressed bytes of the parts read, all together (PRESEND_XLSX_MAX_UNZIPPED_MB). */
  maxUnzippedBytes: number;
}

export const MB = 1024 * 1024;

export const DEFAULT_TABLE_LIMITS: TableLimits = { maxBytes: 1024 * MB, maxRows: 2_000_000, maxUnzippedBytes: 1024 * MB };

/** Excel: 16,384 columns (XFD). */
export const MAX_CELLS_PER_ROW = 16_384;
/** Excel: a cell holds at most 32,767 characters. */
export const MAX_CELL_CHARS = 32_767;
/** The characters of one row, its cells together: a quote that swallowed the rest of the file, not a row. */
export const MAX_ROW_CHARS = MB;
/**
 * XLSX: the shared strings a workbook may have, uncompressed, and how many (the format makes a
 * reader hold them all while the sheet streams). A million rows of three distinct text columns
 * (an address, a name, a company) is about 110 MB in 3 M strings. Measured at the bound: 2.5 M
 * strings of 35 characters in 125 MB took a reading process to a 308 MB peak RSS.
 */
export const MAX_SHARED_STRINGS_BYTES = 128 * MB;
/** An empty `<si/>` is 6 bytes: without a count, 128 MB of them would be 22 M entries. */
export const MAX_SHARED_STRINGS = 4_000_000;
/**
 * XML: the most characters the parser may hold for one piece of markup or text (a text node, a
 * tag with its attributes, a comment or CDATA section) and how deep elements may nest. A
 * SpreadsheetML cell's text is at most MAX_CELL_CHARS characters, each at most 6 as an entity
 * (`&quot;`); its elements nest about seven deep.
 */
export const MAX_XML_TOKEN_CHARS = 6 * MAX_CELL_CHARS;
export const MAX_XML_DEPTH = 64;
export const MAX_XML_ATTRIBUTES = 256;

const count = (n: number) => n.toLocaleString('en-US');
export const describeBytes = (bytes: number) => (bytes >= MB ? `${count(Math.floor(bytes / MB))} MB` : `${count(bytes)} bytes`);

/** The chunks of an input as they come, refused past `limits.maxBytes` (a stream counted as it arrives). */
export async function* boundedBytes<T extends Uint8Array>(chunks: AsyncIterable<T>, limits: TableLimits): AsyncGenerator<T> {
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.byteLength;
    if (bytes > limits.maxBytes) throw new TableError('file_too_large', limitWords.bytes(limits));
    yield chunk;
  }
}

/** The words that name each bound in an error, with how to change it where it can be. */
export const limitWords = {
  bytes: (limits: TableLimits) => `the file is larger than ${describeBytes(limits.maxBytes)}, the most Presend reads (PRESEND_FILE_MAX_MB)`,
  rows: (limits: TableLimits) => `the file has more than ${count(limits.maxRows)} rows, the most Presend reads (PRESEND_FILE_MAX_ROWS)`,
  unzipped: (limits: TableLimits, size: number) =>
    `the workbook unpacks to ${describeBytes(size)} or more, over the ${describeBytes(limits.maxUnzippedBytes)} Presend unpacks (PRESEND_XLSX_MAX_UNZIPPED_MB)`,
  cells: () => `a row has more than ${count(MAX_CELLS_PER_ROW)} cells, the most a spreadsheet row has`,
  cell: () => `a cell is longer than ${count(MAX_CELL_CHARS)} characters, the most a spreadsheet cell holds`,
  row: () => `a row is longer than ${count(MAX_ROW_CHARS)} characters; usually a quote (") that is never closed`,
  sharedStrings: () => `the workbook's shared strings are more than ${describeBytes(MAX_SHARED_STRINGS_BYTES)} or ${count(MAX_SHARED_STRINGS)} strings, the most Presend holds`,
} as const;
